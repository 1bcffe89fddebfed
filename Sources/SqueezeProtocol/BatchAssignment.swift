import SqueezeGzip

/// Coordinator → shared-storage worker: a batch of one-block files to compress by reference
/// (`batch`). Each file is read below `root`, compressed as one whole gzip member (header
/// with its name and mtime, trailer) and written as the piece of its position, as a `workRef`
/// block with a header would be; the answer is a `resultRef` with one piece per file. The
/// coordinator holds the batch, not its files: what `workRef` spells out per block (the
/// absolute path, the header, the ranges) the worker derives here.
public struct BatchAssignment: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item (the batch).
    public var itemID: UInt64
    /// This dispatch of the batch: its pieces carry it in their names (fencing).
    public var attempt: UInt64
    /// The job's engine and level.
    public var setting: EngineSetting
    /// The level the gzip header's XFL names (the job's requested level, 0-9).
    public var headerLevel: Int
    /// The job's workspace (absolute path bytes).
    public var workspace: [UInt8]
    /// The folder the files' paths start from (absolute path bytes).
    public var root: [UInt8]
    /// Whether to fsync each piece before answering (see `RefAssignment.syncPieces`).
    public var syncPieces: Bool
    /// What the worker's view keeps of the stamps.
    public var view: SharedView = .same
    /// The files, in position order.
    public var files: [BatchFile]
    /// How files larger than one block are cut; nil when every file is one block (a worker
    /// that did not announce `wholeFiles` gets no other batch).
    public var memberBlocks: MemberBlocks?

    /// Creates a batch.
    public init(
        jobID: UInt64, itemID: UInt64, attempt: UInt64, setting: EngineSetting, headerLevel: Int, workspace: [UInt8], root: [UInt8],
        syncPieces: Bool, files: [BatchFile]
    ) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.setting = setting
        self.headerLevel = headerLevel
        self.workspace = workspace
        self.root = root
        self.syncPieces = syncPieces
        self.files = files
    }
}
