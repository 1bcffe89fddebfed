/// One job as the coordinator sees it.
public struct JobStatus: Codable, Sendable, Equatable {
    /// The job's id.
    public var jobID: UInt64
    /// The source path.
    public var source: String
    /// Running or how it ended.
    public var state: JobState
    /// Files finished.
    public var filesDone: Int
    /// Files in the job.
    public var files: Int
    /// Uncompressed bytes done.
    public var bytesDone: UInt64
    /// Uncompressed bytes in the job.
    public var bytes: UInt64
    /// Compressed bytes written so far; nil from coordinators before the history.
    public var bytesOut: UInt64?
    /// Files that failed so far; nil from coordinators before the history.
    public var filesFailed: Int?
    /// Who submitted it (`user@host`, or "unknown"); nil when not known.
    public var submitter: String?
    /// When it was submitted, in seconds since 1970 (the coordinator's clock); nil when not known.
    public var submittedAt: Double?
    /// How long it ran, or has been running, in seconds; nil when not known.
    public var seconds: Double?
    /// For `failed` and `cancelled`: why; nil otherwise.
    public var message: String?
    /// For a running job: files in progress, most advanced first, at most five; nil otherwise.
    public var active: [FileProgress]?
    /// For a running job whose scan is still finding files (the totals are those found so
    /// far): true; nil otherwise.
    public var scanning: Bool?

    /// Creates a job status.
    public init(jobID: UInt64, source: String, state: JobState, filesDone: Int, files: Int, bytesDone: UInt64, bytes: UInt64) {
        self.jobID = jobID
        self.source = source
        self.state = state
        self.filesDone = filesDone
        self.files = files
        self.bytesDone = bytesDone
        self.bytes = bytes
    }
}
