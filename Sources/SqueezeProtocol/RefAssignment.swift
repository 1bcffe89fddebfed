import SqueezeGzip

/// Coordinator → shared-storage worker: a work item by reference. The worker reads the blocks
/// from the shared file system and writes each compressed block as a piece file in the job's
/// workspace, named by item, attempt and position; no payload crosses the network.
public struct RefAssignment: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item.
    public var itemID: UInt64
    /// This dispatch of the item: pieces carry it in their names, and only the attempt whose
    /// answer the coordinator accepts is ever stitched (fencing).
    public var attempt: UInt64
    /// The job's engine and level.
    public var setting: EngineSetting
    /// The job's workspace (path bytes).
    public var workspace: [UInt8]
    /// Whether to fsync each piece before answering: the worker runs on another kernel than
    /// the coordinator, whose `syncfs` would not reach the worker's dirty pages.
    public var syncPieces: Bool
    /// What the worker's view keeps of the blocks' stamps: what it must compare.
    public var view: SharedView = .same
    /// How the `workRef` a batch stands for cuts its files of several blocks (a worker sets it
    /// from the batch; it is never sent): a block with a header longer than `blockSize` is such
    /// a file, compressed whole into the member `BatchFile.memberHeader(level:blocks:)` begins.
    public var memberBlocks: MemberBlocks?
    /// The blocks.
    public var blocks: [RefBlock]

    /// Creates an assignment.
    public init(jobID: UInt64, itemID: UInt64, attempt: UInt64, setting: EngineSetting, workspace: [UInt8], syncPieces: Bool, blocks: [RefBlock]) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.setting = setting
        self.workspace = workspace
        self.syncPieces = syncPieces
        self.blocks = blocks
    }
}
