/// A worker's result for one item: its blocks compressed, in assignment order.
public struct WorkResult: Sendable, Equatable {
    /// The job the item belongs to.
    public var jobID: UInt64
    /// The item this answers.
    public var itemID: UInt64
    /// One entry per block of the assignment, same order.
    public var blocks: [ResultBlock]

    /// Creates a result.
    public init(jobID: UInt64, itemID: UInt64, blocks: [ResultBlock]) {
        self.jobID = jobID
        self.itemID = itemID
        self.blocks = blocks
    }
}
