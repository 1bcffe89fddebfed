/// The end of a job: what was done, skipped and failed.
public struct JobSummary: Codable, Sendable, Equatable {
    /// The job's id.
    public var jobID: UInt64
    /// How the job ended.
    public var state: JobState
    /// For `failed` and `cancelled`: why.
    public var message: String?
    /// Files compressed successfully.
    public var filesCompressed: Int
    /// Uncompressed bytes of those files.
    public var bytesIn: UInt64
    /// Compressed bytes written.
    public var bytesOut: UInt64
    /// Wall time of the job.
    public var seconds: Double
    /// Non-regular entries that were skipped: all of them, or, when `skippedTotal` is set, the
    /// first of them (each was also sent in its own event as it was found).
    public var skipped: [EntryNote]
    /// Regular files that could not be compressed: all of them, or, when `failedTotal` is set,
    /// some of them, those that failed for another reason than an existing output first (so
    /// whether every failure was an existing output reads the same from the list).
    public var failed: [EntryNote]
    /// How many entries were skipped, when `skipped` lists fewer: the lists are cut so that
    /// the summary fits in one message to a client. Nil when `skipped` lists them all.
    public var skippedTotal: Int?
    /// How many files failed, when `failed` lists fewer (as `skippedTotal`).
    public var failedTotal: Int?
    /// Uncompressed bytes whose blocks passed through the coordinator (remote workers); the
    /// rest went by reference to shared-storage workers. Nil from coordinators before it.
    public var bytesRelayed: UInt64?
    /// Multi-block files the coordinator joined itself, because a block came from a remote
    /// worker or no shared-storage worker could stitch them. Nil from coordinators before it.
    public var filesJoinedByCoordinator: Int?
    /// Files a resumed job had published before its coordinator restarted and kept as they
    /// were (counted in `filesCompressed`); nil when none.
    public var filesKept: Int?

    /// Creates a summary.
    public init(
        jobID: UInt64, state: JobState, message: String?, filesCompressed: Int, bytesIn: UInt64,
        bytesOut: UInt64, seconds: Double, skipped: [EntryNote], failed: [EntryNote]
    ) {
        self.jobID = jobID
        self.state = state
        self.message = message
        self.filesCompressed = filesCompressed
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.seconds = seconds
        self.skipped = skipped
        self.failed = failed
    }
}

extension JobSummary {
    /// How many entries were skipped, listed or not: never fewer than are listed, whatever
    /// total the coordinator sent.
    public var skippedCount: Int { max(skipped.count, skippedTotal ?? 0) }
    /// How many files failed, listed or not (as `skippedCount`): a summary that lists a failure
    /// never counts as a clean run.
    public var failedCount: Int { max(failed.count, failedTotal ?? 0) }
}
