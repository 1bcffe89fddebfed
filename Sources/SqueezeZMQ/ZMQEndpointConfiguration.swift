/// How an endpoint's socket is made: its type, options, addresses, and how to spot replies.
public struct ZMQEndpointConfiguration: Sendable {
    /// Used for the I/O thread's name and in errors.
    public var name: String
    /// The socket pattern.
    public var type: ZMQSocketType
    /// Options applied before bind and connect.
    public var options: [ZMQSocketOption]
    /// Addresses to bind.
    public var bind: [String]
    /// Addresses to connect.
    public var connect: [String]
    /// Extracts the correlation id of an incoming message, if it carries one; a message whose
    /// id matches a pending request completes that request instead of reaching `events`.
    public var correlation: (@Sendable (ZMQMessage) -> UInt64?)?

    /// A configuration with linger 0 prepended, so closing never blocks on unsent messages.
    public init(
        name: String,
        type: ZMQSocketType,
        options: [ZMQSocketOption] = [],
        bind: [String] = [],
        connect: [String] = [],
        correlation: (@Sendable (ZMQMessage) -> UInt64?)? = nil
    ) {
        self.name = name
        self.type = type
        self.options = [.linger(0)] + options
        self.bind = bind
        self.connect = connect
        self.correlation = correlation
    }
}
