import SqueezeProtocol

/// Work on shared storage that is not compression: done one at a time on the worker's I/O
/// thread, so it never waits behind a slot.
enum StorageTask: Sendable {
    /// Join a file's pieces; answered with `stitched`.
    case stitch(StitchRequest)
    /// Remove an adopted file's pieces; not answered.
    case discard(PieceDiscard)

    /// The task's job.
    var jobID: UInt64 {
        switch self {
        case .stitch(let request): request.jobID
        case .discard(let request): request.jobID
        }
    }
}
