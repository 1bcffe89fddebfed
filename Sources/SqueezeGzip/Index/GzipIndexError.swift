/// An index file that cannot be read: what is wrong with it.
public struct GzipIndexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. "not a GZIDX index".
    public let reason: String

    /// An error saying `reason`.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
