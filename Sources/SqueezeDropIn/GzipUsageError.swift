/// A command line the gzip-style front end cannot run: an unknown option or a bad value.
public struct GzipUsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line, without the program name.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
