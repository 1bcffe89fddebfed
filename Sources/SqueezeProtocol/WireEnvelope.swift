/// A decoded message with its correlation id.
public struct WireEnvelope: Sendable, Equatable {
    /// Ties a reply to its request; 0 when unused.
    public var correlation: UInt64
    /// The message.
    public var message: WireMessage

    /// Creates an envelope.
    public init(_ message: WireMessage, correlation: UInt64 = 0) {
        self.correlation = correlation
        self.message = message
    }
}
