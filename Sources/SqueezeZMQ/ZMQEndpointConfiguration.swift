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
    /// Most received events held for the reader before the I/O thread stops receiving.
    public var inboxMessages: Int
    /// Most received payload bytes held for the reader before the I/O thread stops receiving.
    public var inboxBytes: Int
    /// Called on the I/O thread for each connection whose security handshake failed (a peer
    /// without CURVE, or with the wrong server key); nil does not watch for them.
    public var handshakeFailures: (@Sendable (ZMQHandshakeFailure) -> Void)?
    /// When set, the I/O thread puts a `.tick` among the events every interval to one and a
    /// half (none while one still waits): on the first wake after the interval, so while
    /// messages flow the owner's periodic work rides with them instead of waking a timer and
    /// a task of its own; with none, the poll's own timeout at the latest.
    public var tickInterval: Duration?
    /// Called on the I/O thread for each received message before it joins the inbox; a
    /// message it returns is sent at once. For what must not wait behind queued work: a
    /// heartbeat's answer, so a peer hears from a busy owner while its process lives.
    public var reflex: (@Sendable (ZMQMessage) -> ZMQMessage?)?
    /// Holds each incoming message to a bound while it is read; one that goes past it is
    /// dropped without being kept and reported as `.dropped` (or fails the request it answers).
    /// Nil takes every message whole, whatever its size.
    public var receiveLimit: ZMQReceiveLimit?

    /// A configuration with linger 0 prepended, so closing never blocks on unsent messages.
    public init(
        name: String,
        type: ZMQSocketType,
        options: [ZMQSocketOption] = [],
        bind: [String] = [],
        connect: [String] = [],
        correlation: (@Sendable (ZMQMessage) -> UInt64?)? = nil,
        inboxMessages: Int = 1024,
        inboxBytes: Int = 64 << 20,
        handshakeFailures: (@Sendable (ZMQHandshakeFailure) -> Void)? = nil,
        tickInterval: Duration? = nil,
        reflex: (@Sendable (ZMQMessage) -> ZMQMessage?)? = nil,
        receiveLimit: ZMQReceiveLimit? = nil
    ) {
        self.reflex = reflex
        self.name = name
        self.type = type
        self.options = [.linger(0)] + options
        self.bind = bind
        self.connect = connect
        self.correlation = correlation
        self.inboxMessages = inboxMessages
        self.inboxBytes = inboxBytes
        self.handshakeFailures = handshakeFailures
        self.tickInterval = tickInterval
        self.receiveLimit = receiveLimit
    }
}
