import SqueezeIO
import SqueezeProtocol

/// After a caught collusion: the jobs the colluding workers vouched for are not reported
/// completed before the coordinator has checked every output they published, and written
/// again those that differ from their sources (docs/architecture.md, "Checking results").
extension CoordinatorCore {
    /// `peers` vouched for an answer or a stitched segment of job `id` that was accepted on
    /// their word (the worker that made it and the one that called it good).
    mutating func recordVouching(_ peers: [PeerID], job id: JobID) {
        guard jobs[id] != nil else { return }
        for peer in peers { jobs[id]?.vouchers.insert(verification.identity(of: peer)) }
    }

    /// A collusion among `identities` was caught: if they vouched for anything in running job
    /// `id`, its outputs are checked again before it completes. An archive cannot be partly
    /// redone, and it is not published before its job completes: that job fails instead.
    mutating func suspect(_ identities: [[UInt8]], in id: JobID) {
        guard let job = jobs[id], job.phase.isRunning, identities.contains(where: job.vouchers.contains) else { return }
        if job.archive != nil {
            cancel(job: id, reason: "two workers were caught vouching for corrupt bytes together, and the archive holds their work; "
                + "nothing was published: submit the job again", as: .failed)
            return
        }
        jobs[id]?.suspicions += 1
        logger.warning("job touched by a caught collusion: every output it publishes is checked again before it completes", metadata: ["job": "\(id)"])
    }

    /// Whether job `id`, every file of which is published or failed, must wait for a pass over
    /// its outputs; starts the pass when none runs.
    mutating func awaitsRecheck(_ id: JobID) -> Bool {
        guard let job = jobs[id] else { return false }
        if job.rechecking { return true }
        guard job.suspicions > job.suspicionsRechecked else { return false }
        jobs[id]?.rechecking = true
        jobs[id]?.suspicionsRechecked = job.suspicions
        outbox.append(.check(.outputs(OutputRecheck(
            job: id, sourceRoot: job.sourceRoot, singleFile: job.singleFile, exclude: job.walkExclude, destination: job.destination,
            setting: job.setting, blockSize: job.planner.blockSize, level: job.request.level))))
        return true
    }

    /// The pass over job `id`'s outputs is done: what it redid and could not check is said in
    /// the job's message and failures, and the job completes unless another catch came since.
    mutating func outputsRechecked(_ id: JobID, _ outcome: OutputRecheck.Outcome) {
        guard var job = jobs[id], job.rechecking else { return }
        job.rechecking = false
        for failure in outcome.failures {
            job.failed.append(EntryNote(path: failure.path.display, reason: "checking the output again after a caught collusion: \(failure.reason)"))
        }
        let note = "after a caught collusion the coordinator checked \(outcome.checked) outputs again and wrote \(outcome.redone.count) of them again"
        job.message = job.message.map { "\($0); \(note)" } ?? note
        jobs[id] = job
        verification.outputsRechecked += outcome.checked
        verification.outputsRedone += outcome.redone.count
        logger.warning("outputs checked again after a caught collusion", metadata: [
            "job": "\(id)", "checked": "\(outcome.checked)", "redone": "\(outcome.redone.count)", "failed": "\(outcome.failures.count)",
        ])
        checkFinished(id)
    }
}
