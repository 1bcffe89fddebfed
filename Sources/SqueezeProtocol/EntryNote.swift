/// A path and a one-line reason: a skipped entry or a failed file.
public struct EntryNote: Codable, Sendable, Equatable {
    /// The path relative to the source (or the source itself).
    public var path: String
    /// Why it was skipped or failed.
    public var reason: String

    /// Creates a note.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
