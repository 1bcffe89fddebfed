/// Shared-storage worker → coordinator: a file's pieces are joined (or could not be).
public struct StitchResult: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The file's index in the job.
    public var file: UInt32
    /// The attempt it answers.
    public var attempt: UInt64
    /// Bytes in the finished `.gz`.
    public var length: UInt64
    /// Why it could not be done; the coordinator then joins the pieces itself.
    public var failure: String?

    /// Creates a result.
    public init(jobID: UInt64, file: UInt32, attempt: UInt64, length: UInt64, failure: String? = nil) {
        self.jobID = jobID
        self.file = file
        self.attempt = attempt
        self.length = length
        self.failure = failure
    }
}
