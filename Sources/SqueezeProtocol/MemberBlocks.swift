import SqueezeGzip

/// How a batch's files larger than one block are cut (docs/protocol.md, "Whole files in a
/// batch"): into blocks of `blockSize` bytes, compressed and framed as the coordinator's own
/// multi-block members are (the offset table of docs/format.md, for `engine`). A worker that
/// compresses such a file whole writes the very bytes a stitched member of it would be.
public struct MemberBlocks: Sendable, Equatable {
    /// Bytes of every block but a file's last.
    public var blockSize: Int
    /// The engine the blocks are compressed with: whether the member restarts at every block
    /// or only every `GzipOffsetTable.primedRestartBytes`.
    public var engine: CompressionEngine

    /// The block sizes a peer accepts: the coordinator's own range for a job's blocks.
    public static let blockSizes = 4096...ProtocolLimits.maxBlockSize

    /// Creates the cut of a job's files.
    public init(blockSize: Int, engine: CompressionEngine) {
        self.blockSize = blockSize
        self.engine = engine
    }

    /// Whether `file` is cut into several blocks.
    public func splits(_ file: BatchFile) -> Bool {
        file.size > UInt64(blockSize)
    }
}
