/// Shared-storage worker → coordinator: a `publish` is done. Every member not named in
/// `failures` is in place and durable (its rename synced).
public struct PublishReport: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item.
    public var itemID: UInt64
    /// The attempt the grant named.
    public var attempt: UInt64
    /// Members that could not be published: their position and why.
    public var failures: [PublishFailure]

    /// Creates a report.
    public init(jobID: UInt64, itemID: UInt64, attempt: UInt64, failures: [PublishFailure]) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.failures = failures
    }
}
