import Glibc
import SqueezeProtocol
import SqueezeZMQ

/// Clients: who follows which job, their liveness, attaching to a running job.
extension CoordinatorCore {
    /// Client `peer` attaches to job `request.jobID`: from now on it gets the job's events,
    /// after where the job stands (`started` as of now and a progress snapshot). A job that
    /// already ended gives its `finished` alone. An owner takes the job over: its silence
    /// cancels the job, as its submitter's did.
    mutating func attach(_ request: AttachRequest, client peer: PeerID) throws -> JobAttachment {
        let id = JobID(request.jobID)
        if let milliseconds = request.heartbeatMilliseconds, !JobRequestRules.clientHeartbeatRange.contains(milliseconds) {
            let range = JobRequestRules.clientHeartbeatRange
            throw CoordinatorError("heartbeatMilliseconds \(milliseconds): must be \(range.lowerBound)-\(range.upperBound)")
        }
        if var job = jobs[id], job.state == .running {
            let accepted = JobAccepted(jobID: id.value, destination: job.destinationDisplay)
            // A client asking again (its requests queued while the coordinator was away reach it
            // together) already gets the events once: a second stream would repeat them.
            if job.owner == peer || job.watchers.contains(peer) { return .already(accepted) }
            if request.owner == true {
                job.owner = peer
                let interval = request.heartbeatMilliseconds.map { Duration.milliseconds($0) } ?? configuration.heartbeatInterval
                job.ownerDeadline = interval * configuration.liveness
            } else {
                job.watchers.insert(peer)
            }
            clientsHeard[peer] = now
            jobs[id] = job
            logger.info("client attached", metadata: ["job": "\(id)", "owner": "\(request.owner == true)"])
            return .following(accepted, first: [.started(job.startSnapshot()), .progress(job.snapshot(workers: workers.count, now: now))])
        }
        if let ended = endedJobs.first(where: { $0.accepted.jobID == id.value }) {
            return .ended(ended.accepted, ended.summary)
        }
        // A job being cancelled is still in the table, but its end is near and owned by its client.
        throw CoordinatorError(jobs[id] == nil ? "no job \(id) on this coordinator" : "job \(id) is ending; try again")
    }

    /// Whether `peer` follows job `job`, which still runs (or ends, cancelled): its heartbeats
    /// naming the job are echoed.
    func follows(_ job: JobID, _ peer: PeerID) -> Bool {
        guard let record = jobs[job] else { return false }
        // A cancelled job is still followed until its `finished`, which waits for its writers.
        return record.phase.isFollowed && (record.owner == peer || record.watchers.contains(peer))
    }

    /// Client `peer` sent something now: its jobs are alive.
    mutating func clientHeard(_ peer: PeerID) {
        clientsHeard[peer] = now
    }

    /// A send to a client failed: EHOSTUNREACH means it disconnected, EAGAIN that it fell so
    /// far behind that its queue is full. Either way its events are lost, so its jobs are
    /// cancelled (and it stops getting heartbeat echoes, so it gives up too).
    mutating func clientSendFailed(to peer: PeerID, error: ZMQError) {
        let reason: String
        switch error.errno {
        case EHOSTUNREACH: reason = "the client disconnected"
        case EAGAIN: reason = "the client could not keep up with the job's events"
        default:
            logger.warning("send to client failed", metadata: ["error": "\(error)"])
            return
        }
        if error.errno == EHOSTUNREACH { clientsHeard.removeValue(forKey: peer) }
        for id in jobOrder where jobs[id]?.owner == peer {
            logger.warning("cancelling a job: \(reason)", metadata: ["job": "\(id)"])
            cancel(job: id, reason: reason)
        }
    }

    /// Cancels jobs whose client has been silent past its deadline, and forgets clients that
    /// follow nothing and have been quiet for a minute.
    mutating func checkClients(now: ContinuousClock.Instant) {
        for id in jobOrder {
            guard let job = jobs[id], job.state == .running, let owner = job.owner else { continue }
            let heard = clientsHeard[owner] ?? job.started
            if now - heard > job.ownerDeadline {
                logger.warning("client silent; cancelling its job", metadata: ["job": "\(id)"])
                cancel(job: id, reason: "the client stopped responding")
            }
        }
        let following = Set(jobOrder.compactMap { jobs[$0]?.owner })
        clientsHeard = clientsHeard.filter { following.contains($0.key) || now - $0.value < .seconds(60) }
    }
}
