/// A path and a one-line reason: a skipped entry or a failed file.
public struct EntryNote: Codable, Sendable, Equatable {
    /// The path relative to the source (or the source itself).
    public var path: String
    /// Why it was skipped or failed.
    public var reason: String
    /// True for a file refused only because its output already existed (no `force`): running
    /// the job again cannot do better without `force`. Nil otherwise.
    public var outputExists: Bool?

    /// Creates a note.
    public init(path: String, reason: String, outputExists: Bool? = nil) {
        self.path = path
        self.reason = reason
        self.outputExists = outputExists
    }
}
