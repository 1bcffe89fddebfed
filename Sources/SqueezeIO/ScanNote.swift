/// An entry a scan did not turn into a file: skipped (non-regular) or unreadable.
public struct ScanNote: Sendable, Equatable {
    /// The path relative to the scan root.
    public var relativePath: BytePath
    /// Why, in a few words.
    public var reason: String

    /// Creates a note.
    public init(relativePath: BytePath, reason: String) {
        self.relativePath = relativePath
        self.reason = reason
    }
}
