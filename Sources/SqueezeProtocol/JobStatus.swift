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
