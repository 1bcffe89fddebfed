/// A job's running counts, as last recorded.
public struct JournalTotals {
    /// Files compressed and published.
    public var filesDone: Int
    /// Files that failed.
    public var filesFailed: Int
    /// Files skipped (for instance already published by an earlier run of the job).
    public var filesSkipped: Int
    /// Source bytes read.
    public var bytesIn: UInt64
    /// Compressed bytes written.
    public var bytesOut: UInt64

    /// Totals, zero unless given.
    public init(filesDone: Int = 0, filesFailed: Int = 0, filesSkipped: Int = 0, bytesIn: UInt64 = 0, bytesOut: UInt64 = 0) {
        self.filesDone = filesDone
        self.filesFailed = filesFailed
        self.filesSkipped = filesSkipped
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
    }
}

extension JournalTotals: Sendable {}

extension JournalTotals: Equatable {}
