import SqueezeGzip

/// A work item sent to a worker: one or more blocks of one job, with the job's engine setting.
public struct WorkAssignment: Sendable, Equatable {
    /// The job the item belongs to.
    public var jobID: UInt64
    /// Unique within the job; results are matched by it.
    public var itemID: UInt64
    /// The engine and its level: the same for every item of a job, so the bytes never depend
    /// on which worker compressed a block.
    public var setting: EngineSetting
    /// The blocks, in any order.
    public var blocks: [WorkBlock]

    /// Creates an assignment.
    public init(jobID: UInt64, itemID: UInt64, setting: EngineSetting, blocks: [WorkBlock]) {
        self.jobID = jobID
        self.itemID = itemID
        self.setting = setting
        self.blocks = blocks
    }

    /// Uncompressed bytes in the item, dictionaries excluded.
    public var dataBytes: Int { blocks.reduce(0) { $0 + $1.dataLength } }
}
