/// A worker could not compress an item.
public struct ItemFailure: Codable, Sendable, Equatable {
    /// The job the item belongs to.
    public var jobID: UInt64
    /// The item.
    public var itemID: UInt64
    /// Why, in one line.
    public var reason: String

    /// Creates a failure report.
    public init(jobID: UInt64, itemID: UInt64, reason: String) {
        self.jobID = jobID
        self.itemID = itemID
        self.reason = reason
    }
}
