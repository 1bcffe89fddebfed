import SqueezeIO
import SqueezeProtocol

/// Work for a writer task. The actor sends these in order, per partition, so a discard is
/// never overtaken by a block of the same file.
enum WriterCommand: Sendable {
    /// Compressed blocks from one result, per file (each block's index in its file, its
    /// bytes), in any order: one command per item and writer, so the writer appends a bundle's
    /// files with one trip to the I/O pool and reports them to the coordinator at once.
    case blocks([(spec: OutputSpec, blocks: [(index: Int, block: ResultBlock)])])
    /// A compressed block a shared-storage worker wrote as a piece file, in any order.
    case piece(OutputSpec, index: Int, PieceBlock)
    /// Whole `.gz` files shared-storage workers wrote (one-block files, or a file one
    /// stitched): taken over and renamed into place, not copied. A bundle's one-block files
    /// come as one command, so the writer serves them with one trip to the I/O pool.
    case members([(spec: OutputSpec, piece: PieceBlock)])
    /// Whole members a worker was granted to publish and did not (it left, or took too long):
    /// taken over like `members`, except that a piece the worker already renamed into place
    /// counts as published.
    case takeOver([(spec: OutputSpec, piece: PieceBlock)])
    /// A file's output whose blocks shared-storage workers wrote in place, up to `end`: the
    /// header and trailer are written, then it is taken over like a member.
    case placed(OutputSpec, output: BytePath, end: UInt64, trailer: [UInt8])
    /// Remove a finished job's workspace (after its other commands).
    case removeWorkspace(JobID, JobWorkspace)
    /// Drop a file's temporary and buffered blocks (it failed).
    case discardFile(FileKey)
    /// Drop every file of a job (cancelled or failed).
    case discardJob(JobID)
    /// Make the sealed files durable and rename them into place (sent by the ticker).
    case flush
}
