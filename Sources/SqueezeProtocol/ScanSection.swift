/// What a `scanned` found in one directory: the scan's own directory first, then each
/// subdirectory the worker went on into, depth first. Entries are named by their names in
/// the section's directory (one component each), in byte order.
public struct ScanSection: Sendable, Equatable {
    /// The directory, relative to the job's root; empty for the root itself.
    public var directory: [UInt8]
    /// The last name the section took when entries are left after it; empty when the
    /// directory is done.
    public var resumeAfter: [UInt8]
    /// Regular files of at most the scan's `smallFileBytes`: compressed, their pieces in the
    /// report's `result`, section after section.
    public var smallFiles: [BatchFile]
    /// Larger regular files: the coordinator cuts them into blocks.
    public var largeFiles: [BatchFile]
    /// Subdirectories' names: each is a later section of the same report, or left to the
    /// coordinator as a scan of its own.
    public var subdirectories: [[UInt8]]
    /// Entries skipped or failed.
    public var notes: [ScanEntryNote]

    /// Creates a section.
    public init(
        directory: [UInt8], resumeAfter: [UInt8] = [], smallFiles: [BatchFile] = [], largeFiles: [BatchFile] = [],
        subdirectories: [[UInt8]] = [], notes: [ScanEntryNote] = []
    ) {
        self.directory = directory
        self.resumeAfter = resumeAfter
        self.smallFiles = smallFiles
        self.largeFiles = largeFiles
        self.subdirectories = subdirectories
        self.notes = notes
    }
}
