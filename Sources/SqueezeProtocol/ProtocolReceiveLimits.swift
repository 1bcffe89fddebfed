import SqueezeZMQ

/// The receive limits of the protocol's four sockets (`ZMQEndpointConfiguration.receiveLimit`).
/// Each message is held to its type's bound (`MessageType.bound`) while it is read, so no peer
/// can make a receiver keep more of one message than the protocol allows; a message whose
/// header does not decode, or of a type the socket never receives, is dropped at once. The
/// receiver reads what was dropped with `DroppedMessage` and counts it.
public enum ProtocolReceiveLimits {
    /// Longest frame before a message's bound is known: a routing id (libzmq's are at most 255
    /// bytes) or the header (16).
    public static let leadingFrameBytes = 255

    /// The coordinator's workers' ROUTER: what workers send. A peer `isRegistered` does not know
    /// (by its routing-id frame) may send only `MessageType.fromUnregisteredWorkers`; it is asked
    /// on the I/O thread for every other message, so it must be quick.
    public static func coordinatorWorkers(isRegistered: @escaping @Sendable (ZMQFrame) -> Bool) -> ZMQReceiveLimit {
        routed(accepting: MessageType.fromWorkers) { type, routingID in
            MessageType.fromUnregisteredWorkers.contains(type) || isRegistered(routingID)
        }
    }

    /// The coordinator's clients' ROUTER: what clients send, from any client.
    public static let coordinatorClients = routed(accepting: MessageType.fromClients) { _, _ in true }

    /// A worker's DEALER: what the coordinator sends workers.
    public static let worker = dealer(accepting: MessageType.toWorkers)

    /// A client's DEALER: what the coordinator sends clients.
    public static let client = dealer(accepting: MessageType.toClients)

    private static func routed(
        accepting types: Set<MessageType>, from admits: @escaping @Sendable (MessageType, ZMQFrame) -> Bool
    ) -> ZMQReceiveLimit {
        ZMQReceiveLimit(leadingFrames: 2, leadingFrameBytes: leadingFrameBytes) { leading in
            guard leading.count == 2, let header = try? MessageHeader(decoding: leading[1]),
                  types.contains(header.type), admits(header.type, leading[0]) else { return .nothing }
            return header.type.bound.adding(frames: 1, bytes: leading[0].count)
        }
    }

    private static func dealer(accepting types: Set<MessageType>) -> ZMQReceiveLimit {
        ZMQReceiveLimit(leadingFrames: 1, leadingFrameBytes: leadingFrameBytes) { leading in
            guard let first = leading.first, let header = try? MessageHeader(decoding: first), types.contains(header.type) else { return .nothing }
            return header.type.bound
        }
    }
}
