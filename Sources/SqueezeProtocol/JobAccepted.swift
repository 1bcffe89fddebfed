/// The coordinator accepted a job.
public struct JobAccepted: Codable, Sendable, Equatable {
    /// The job's id, for `cancel` and `status`.
    public var jobID: UInt64
    /// The resolved output folder.
    public var destination: String

    /// Creates an acceptance.
    public init(jobID: UInt64, destination: String) {
        self.jobID = jobID
        self.destination = destination
    }
}
