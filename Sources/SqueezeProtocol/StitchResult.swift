/// Shared-storage worker → coordinator: a segment of a file's stitch is written (or could not
/// be); one answer per segment, in order.
public struct StitchResult: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The file's index in the job.
    public var file: UInt32
    /// The attempt it answers.
    public var attempt: UInt64
    /// Bytes of the output written so far: the segment's end (the whole `.gz` after the last).
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
