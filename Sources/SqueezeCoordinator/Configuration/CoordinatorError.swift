/// A job request that cannot be carried out; the message is one line and names the path.
public struct CoordinatorError: Error, Sendable, CustomStringConvertible {
    /// What the user sees.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
