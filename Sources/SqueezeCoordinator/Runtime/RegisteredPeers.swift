import NIOConcurrencyHelpers
import SqueezeZMQ

/// The routing ids of the registered workers, for the workers' endpoint's I/O thread: its
/// receive limit lets a peer it does not find here send only what a worker sends before its
/// welcome (`ProtocolReceiveLimits.coordinatorWorkers`). The coordinator updates it as its
/// core registers and forgets workers, before the welcome leaves.
final class RegisteredPeers: Sendable {
    private let peers = NIOLockedValueBox(Set<[UInt8]>())

    /// Records whether `peer` is registered.
    func set(_ peer: PeerID, registered: Bool) {
        peers.withLockedValue { peers in
            if registered {
                peers.insert(peer.bytes)
            } else {
                peers.remove(peer.bytes)
            }
        }
    }

    /// Whether the peer whose routing-id frame is `routingID` is registered.
    func contains(_ routingID: ZMQFrame) -> Bool {
        let bytes = Array(routingID)
        return peers.withLockedValue { $0.contains(bytes) }
    }
}
