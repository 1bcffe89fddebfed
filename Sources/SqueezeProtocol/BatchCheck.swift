import SqueezeGzip

/// Coordinator → verifying worker: check another worker's answer to a `batch` (`verifyBatch`).
/// For each file the verifier reads the source below `root` (checking its stamp) and the piece
/// of that position and attempt in the workspace, which must be exactly one gzip member: the
/// header the batch implies, deflate data that decodes to the source, and its trailer. It is
/// answered with `verified`, one finding per file, as a `verify` of member references is; the
/// compressing worker's CRCs are kept back.
public struct BatchCheck: Sendable, Equatable {
    /// The check, echoed in `verified`.
    public var checkID: UInt64
    /// The job.
    public var jobID: UInt64
    /// The item (the batch).
    public var itemID: UInt64
    /// The attempt whose pieces are checked.
    public var attempt: UInt64
    /// The level the headers' XFL names.
    public var headerLevel: Int
    /// The job's workspace (absolute path bytes).
    public var workspace: [UInt8]
    /// The folder the files' paths start from (absolute path bytes).
    public var root: [UInt8]
    /// What the verifier's view keeps of the stamps.
    public var view: SharedView = .same
    /// The files, in position order.
    public var files: [BatchFile]
    /// Each piece's length as its worker reported it, in position order.
    public var pieceLengths: [UInt64]
    /// How the batch cut files larger than one block, so the checker knows their headers;
    /// nil when every file is one block.
    public var memberBlocks: MemberBlocks?
    /// The listing check of the scan this batch came from, for a verifier that announced
    /// `batchListings`: answered in the batch's `verified`. Nil for any other batch.
    public var listing: ListingCheck?

    /// Creates a check.
    public init(
        checkID: UInt64, jobID: UInt64, itemID: UInt64, attempt: UInt64, headerLevel: Int, workspace: [UInt8], root: [UInt8],
        files: [BatchFile], pieceLengths: [UInt64]
    ) {
        self.checkID = checkID
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.headerLevel = headerLevel
        self.workspace = workspace
        self.root = root
        self.files = files
        self.pieceLengths = pieceLengths
    }
}
