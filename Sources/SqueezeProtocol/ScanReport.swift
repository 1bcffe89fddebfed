/// Shared-storage worker → coordinator: a `scan` is done (`scanned`). Entries are named by
/// their names in the slice's directory (one component each), in byte order; `result` holds
/// one piece per small file, in the same order, as a `resultRef` would.
public struct ScanReport: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item (the slice).
    public var itemID: UInt64
    /// The attempt the pieces were written under.
    public var attempt: UInt64
    /// How the scan went.
    public var outcome: ScanOutcome
    /// For an outcome other than `listed`: why.
    public var reason: String
    /// The last name the slice took when entries are left after it; empty when the directory
    /// is done.
    public var resumeAfter: [UInt8]
    /// Regular files of at most the slice's `smallFileBytes`: compressed, their pieces in `result`.
    public var smallFiles: [BatchFile]
    /// Larger regular files: the coordinator cuts them into blocks.
    public var largeFiles: [BatchFile]
    /// Subdirectories' names.
    public var subdirectories: [[UInt8]]
    /// Entries skipped or failed.
    public var notes: [ScanEntryNote]
    /// The small files' pieces; nil when there are none.
    public var result: RefResult?

    /// Creates a report.
    public init(
        jobID: UInt64, itemID: UInt64, attempt: UInt64, outcome: ScanOutcome, reason: String = "", resumeAfter: [UInt8] = [],
        smallFiles: [BatchFile] = [], largeFiles: [BatchFile] = [], subdirectories: [[UInt8]] = [], notes: [ScanEntryNote] = [],
        result: RefResult? = nil
    ) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.outcome = outcome
        self.reason = reason
        self.resumeAfter = resumeAfter
        self.smallFiles = smallFiles
        self.largeFiles = largeFiles
        self.subdirectories = subdirectories
        self.notes = notes
        self.result = result
    }
}

extension ScanReport {
    /// Whether `name` can be an entry of a directory: one component, not `.` or `..`, no NUL.
    public static func isEntryName(_ name: [UInt8]) -> Bool {
        guard !name.isEmpty, name.count <= ProtocolLimits.maxNameBytes, !name.contains(0), !name.contains(UInt8(ascii: "/")) else { return false }
        return name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")]
    }
}
