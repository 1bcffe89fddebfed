import Glibc
import SqueezeIO
import SqueezeProtocol

/// Carries out a `publish`: renames an accepted attempt's whole members from the workspace
/// into place, with the same durability as the coordinator's own publishing: the pieces'
/// data on disk before any rename (one `syncfs`, when the grant says they were not synced
/// each), the renames on disk before the answer (one more).
enum MemberPublisher {
    /// Blocking: publishes what `grant` names and reports what could not be.
    static func publish(_ grant: PublishGrant) -> PublishReport {
        let workspace = BytePath(bytes: grant.workspace)
        var report = PublishReport(jobID: grant.jobID, itemID: grant.itemID, attempt: grant.attempt, failures: [])
        if grant.syncPieces {
            do {
                try AtomicOutputFile.syncFileSystem(containing: workspace)
            } catch {
                let reason = (error as? FileSystemError)?.reason ?? "\(error)"
                report.failures = grant.members.map { PublishFailure(position: $0.position, reason: reason) }
                return report
            }
        }
        var renamed: [PublishMember] = []
        for member in grant.members {
            let piece = JobWorkspace.piecePath(in: workspace, item: grant.itemID, attempt: grant.attempt, position: Int(member.position))
            let output = BytePath(bytes: member.output)
            let result = member.replace
                ? piece.withCString { from in output.withCString { rename(from, $0) } }
                : Directories.renameWithoutReplacing(piece, to: output)
            if result == 0 {
                renamed.append(member)
            } else if errno == EEXIST && !member.replace {
                report.failures.append(PublishFailure(
                    position: member.position, reason: "output \(output.display) already exists (use --force to replace it)"))
            } else {
                report.failures.append(PublishFailure(position: member.position, reason: FileSystemError.last("rename", output.display).reason))
            }
        }
        // The renames themselves must be on disk before the coordinator counts them done.
        if let first = renamed.first {
            do {
                try AtomicOutputFile.syncFileSystem(containing: BytePath(bytes: first.output))
            } catch {
                let reason = "output renamed but not synced: \((error as? FileSystemError)?.reason ?? "\(error)")"
                report.failures += renamed.map { PublishFailure(position: $0.position, reason: reason) }
            }
        }
        return report
    }
}
