/// A work item sent to a worker: one or more blocks of one job, at one level.
public struct WorkAssignment: Sendable, Equatable {
    /// The job the item belongs to.
    public var jobID: UInt64
    /// Unique within the job; results are matched by it.
    public var itemID: UInt64
    /// zlib level 0–9.
    public var level: Int
    /// The blocks, in any order.
    public var blocks: [WorkBlock]

    /// Creates an assignment.
    public init(jobID: UInt64, itemID: UInt64, level: Int, blocks: [WorkBlock]) {
        self.jobID = jobID
        self.itemID = itemID
        self.level = level
        self.blocks = blocks
    }

    /// Uncompressed bytes in the item, dictionaries excluded.
    public var dataBytes: Int { blocks.reduce(0) { $0 + $1.dataLength } }
}
