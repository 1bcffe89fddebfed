/// Coordinator → shared-storage worker: a file's stitched member was adopted, so its pieces
/// are no longer needed; remove them. Sent to the worker that stitched, which frees their
/// space on its own time: the coordinator pays nothing per byte for it. No answer; whatever
/// is left goes with the workspace at the job's end.
public struct PieceDiscard: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The job's workspace (path bytes).
    public var workspace: [UInt8]
    /// The pieces, named as in the stitch (`length` is not used).
    public var pieces: [StitchPiece]

    /// Creates a request.
    public init(jobID: UInt64, workspace: [UInt8], pieces: [StitchPiece]) {
        self.jobID = jobID
        self.workspace = workspace
        self.pieces = pieces
    }
}
