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

    /// Files the job had found to compress (0: not recorded, by a journal before schema v2).
    public var filesPlanned: Int
    /// Their source bytes (0: not recorded).
    public var bytesPlanned: UInt64

    /// Totals, zero unless given.
    public init(
        filesDone: Int = 0, filesFailed: Int = 0, filesSkipped: Int = 0, bytesIn: UInt64 = 0, bytesOut: UInt64 = 0,
        filesPlanned: Int = 0, bytesPlanned: UInt64 = 0
    ) {
        self.filesDone = filesDone
        self.filesFailed = filesFailed
        self.filesSkipped = filesSkipped
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.filesPlanned = filesPlanned
        self.bytesPlanned = bytesPlanned
    }
}

extension JournalTotals: Sendable {}

extension JournalTotals: Equatable {}
