import NIOConcurrencyHelpers
import SqueezeProtocol
import SqueezeZMQ

/// A bare ROUTER on a free loopback port, standing in for a coordinator in tests that drive a
/// real `Worker` message by message.
struct RawCoordinator {
    let endpoint: ZMQEndpoint
    /// Where the worker connects.
    let address: String

    /// Binds it in `context`.
    static func start(context: ZMQContext) async throws -> RawCoordinator {
        let endpoint = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "raw-coordinator", type: .router, bind: ["tcp://127.0.0.1:*"]))
        guard let address = endpoint.boundEndpoints.first else {
            await endpoint.shutdown()
            throw ZMQError(operation: "bind", errno: 0)
        }
        return RawCoordinator(endpoint: endpoint, address: address)
    }

    /// Sends `message` to the peer whose routing id is `peer`.
    func send(_ message: WireMessage, to peer: [UInt8]) {
        endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(message)))
    }

    /// Plays the coordinator's side until the endpoint shuts down: answers `workerReady` with
    /// `welcome`, noting the worker's routing id in `peer`, and hands every message it decodes
    /// to `received`.
    func serve(welcome: Welcome, peer: NIOLockedValueBox<[UInt8]?>, _ received: @Sendable (WireMessage) -> Void) async {
        for await event in endpoint.events {
            guard case .message(let message) = event, message.frames.count >= 2,
                  let envelope = try? WireCodec.decode(message.frames.dropFirst()) else { continue }
            if case .workerReady = envelope.message {
                let from = Array(message.frames[0])
                peer.withLockedValue { $0 = from }
                send(.welcome(welcome), to: from)
            }
            received(envelope.message)
        }
    }

    /// The routing id of the worker that registered, once it has (nil after 10 s without).
    static func registered(_ peer: NIOLockedValueBox<[UInt8]?>) async -> [UInt8]? {
        guard await QuietHeartbeatTests.eventually({ peer.withLockedValue { $0 } != nil }) else { return nil }
        return peer.withLockedValue { $0 }
    }
}
