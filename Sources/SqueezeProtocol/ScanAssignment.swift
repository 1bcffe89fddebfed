import SqueezeGzip

/// Coordinator → shared-storage worker: a slice of one directory of a job to scan, and its
/// one-block files to compress as a batch (`scan`, docs/protocol.md, "Scans"). The worker
/// lists the directory's entries after `after`, then its subdirectories depth first while the
/// limits leave room, makes each directory's output folder, writes each file of at most
/// `smallFileBytes` as a whole member in the piece of its position (as a `batch` would), and
/// answers with one `scanned`: what it found and the pieces.
public struct ScanAssignment: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item (the slice).
    public var itemID: UInt64
    /// This dispatch of the slice: its pieces carry it in their names (fencing).
    public var attempt: UInt64
    /// The job's engine and level.
    public var setting: EngineSetting
    /// The level the gzip header's XFL names (the job's requested level, 0-9).
    public var headerLevel: Int
    /// Whether to fsync each piece before answering (see `RefAssignment.syncPieces`).
    public var syncPieces: Bool
    /// What the worker's view keeps of the stamps.
    public var view: SharedView = .same
    /// Files of at most this many bytes are one block: compressed here as the slice's batch.
    public var smallFileBytes: UInt64
    /// The most entries of each kind (small files, large files, subdirectories, notes) the
    /// scan may list, over all its directories.
    public var maxEntries: Int
    /// The slice ends once its small files hold this many bytes.
    public var maxSmallBytes: UInt64
    /// The job's workspace (absolute path bytes).
    public var workspace: [UInt8]
    /// The job's source root (absolute path bytes).
    public var root: [UInt8]
    /// The job's destination: the directory's outputs go below it at the same relative path.
    public var destination: [UInt8]
    /// The directory, relative to `root`; empty for the root itself.
    public var directory: [UInt8]
    /// The slice starts after this name; empty for the directory's first slice.
    public var after: [UInt8]
    /// Further directories (relative to `root`) to read from their start once `directory` is
    /// done, while the limits leave room; at most `maxScanSections`.
    public var more: [[UInt8]] = []
    /// A path relative to `root` to leave out wherever the scan meets it (the destination,
    /// inside the source); empty for none.
    public var exclude: [UInt8]
    /// How files of more than one block, up to `smallFileBytes`, are cut: such a file is
    /// compressed whole as the batch's member of its position. Nil: `smallFileBytes` is one
    /// block (sent only to a worker that announced `wholeFiles`).
    public var memberBlocks: MemberBlocks?

    /// Creates a slice to scan.
    public init(
        jobID: UInt64, itemID: UInt64, attempt: UInt64, setting: EngineSetting, headerLevel: Int, syncPieces: Bool,
        smallFileBytes: UInt64, maxEntries: Int, maxSmallBytes: UInt64, workspace: [UInt8], root: [UInt8], destination: [UInt8],
        directory: [UInt8], after: [UInt8], exclude: [UInt8]
    ) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.setting = setting
        self.headerLevel = headerLevel
        self.syncPieces = syncPieces
        self.smallFileBytes = smallFileBytes
        self.maxEntries = maxEntries
        self.maxSmallBytes = maxSmallBytes
        self.workspace = workspace
        self.root = root
        self.destination = destination
        self.directory = directory
        self.after = after
        self.exclude = exclude
    }
}
