import CZeroMQ

/// A connection whose security handshake failed for a reason other than the ZAP handler's
/// verdict: a peer without CURVE, or one that has the wrong server key.
public struct ZMQHandshakeFailure: Sendable, Equatable {
    /// The endpoint the connection came in on.
    public var endpoint: String
    /// libzmq's event (`ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL` or `_NO_DETAIL`).
    public var event: UInt16
    /// The event's value: a `ZMQ_PROTOCOL_ERROR_*` code, or an errno.
    public var value: UInt32

    /// A failure read from a monitor event.
    public init(endpoint: String, event: UInt16, value: UInt32) {
        self.endpoint = endpoint
        self.event = event
        self.value = value
    }

    /// A few words for a log line.
    public var reason: String {
        let detail = Int32(event) == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL ? "protocol error 0x\(String(value, radix: 16))" : "errno \(value)"
        return "handshake failed, the peer has no CURVE key or not this server's public key (\(detail))"
    }
}
