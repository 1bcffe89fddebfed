import Glibc
import SqueezeIO
import SqueezeProtocol

/// Work on shared storage that is not compression: done one at a time on the worker's I/O
/// thread, so it never waits behind a slot.
enum StorageTask: Sendable {
    /// Join a file's pieces; answered with `stitched`.
    case stitch(StitchRequest)
    /// Remove an adopted file's pieces; answered with `discarded`.
    case discard(PieceDiscard)
    /// Rename an accepted attempt's whole members into place; answered with `published`.
    case publish(PublishGrant)

    /// The task's job.
    var jobID: UInt64 {
        switch self {
        case .stitch(let request): request.jobID
        case .discard(let request): request.jobID
        case .publish(let grant): grant.jobID
        }
    }

    /// Blocking: does the task and returns the answer for the coordinator.
    func perform() -> WireMessage {
        switch self {
        case .stitch(let request): .stitched(Self.join(request))
        case .discard(let request):
            // Best effort: what stays is removed with the workspace when the job ends. The
            // answer lets the coordinator remove the workspace after this, not race it.
            Self.remove(request)
        case .publish(let grant): .published(MemberPublisher.publish(grant))
        }
    }

    /// The answer when the worker stops before the task ran.
    var stopped: WireMessage {
        switch self {
        case .stitch(let request):
            .stitched(StitchResult(jobID: request.jobID, file: request.file, attempt: request.attempt, length: 0, failure: "worker stopping"))
        case .discard(let request):
            .discarded(request.jobID)
        case .publish(let grant):
            .published(PublishReport(
                jobID: grant.jobID, itemID: grant.itemID, attempt: grant.attempt,
                failures: grant.members.map { PublishFailure(position: $0.position, reason: "worker stopping") }))
        }
    }

    /// Blocking: unlinks the pieces a discard names (paths built here from their numbers).
    private static func remove(_ request: PieceDiscard) -> WireMessage {
        let workspace = BytePath(bytes: request.workspace)
        for piece in request.pieces {
            let path = JobWorkspace.piecePath(in: workspace, item: piece.item, attempt: piece.attempt, position: Int(piece.position))
            _ = path.withCString { unlink($0) }
        }
        return .discarded(request.jobID)
    }

    /// Blocking: writes a segment of a stitched member and reports where it ends, or why it
    /// could not.
    private static func join(_ request: StitchRequest) -> StitchResult {
        let workspace = BytePath(bytes: request.workspace)
        let pieces = request.pieces.map { piece in
            (JobWorkspace.piecePath(in: workspace, item: piece.item, attempt: piece.attempt, position: Int(piece.position)), piece.length)
        }
        let stamp = FileStamp(size: 0, modifiedSeconds: request.modifiedSeconds, modifiedNanoseconds: request.modifiedNanoseconds,
                              device: 0, inode: 0, permissions: request.permissions)
        do {
            let length = try PieceFile.stitch(
                JobWorkspace.stitchPath(in: workspace, file: Int(request.file), attempt: request.attempt), offset: request.offset,
                header: request.header, pieces: pieces, trailer: request.trailer, finalHeader: request.finalHeader, member: stamp,
                sync: request.syncResult)
            return StitchResult(jobID: request.jobID, file: request.file, attempt: request.attempt, length: length)
        } catch {
            return StitchResult(jobID: request.jobID, file: request.file, attempt: request.attempt, length: 0,
                                failure: (error as? FileSystemError)?.reason ?? "\(error)")
        }
    }
}
