/// A refused request, with a one-line reason meant for the user.
public struct ErrorReply: Codable, Sendable, Equatable {
    /// What went wrong, naming the path where there is one.
    public var message: String

    /// Creates an error reply.
    public init(message: String) {
        self.message = message
    }
}
