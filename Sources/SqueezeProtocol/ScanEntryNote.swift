/// An entry of a scanned slice that is not a file to compress: skipped (not a regular file or
/// directory) or failed (it could not be looked at).
public struct ScanEntryNote: Sendable, Equatable {
    /// Its name in the slice's directory.
    public var name: [UInt8]
    /// Whether it failed (else it was skipped).
    public var failed: Bool
    /// Why, in a few words.
    public var reason: String

    /// Creates a note.
    public init(name: [UInt8], failed: Bool, reason: String) {
        self.name = name
        self.failed = failed
        self.reason = reason
    }
}
