import SqueezeProtocol

/// How each worker gets at each job's files: decided per worker and job, by what the worker
/// announced or by a probe.
extension WorkerRoster {
    /// What the coordinator does once a worker's way to a job's files is first decided.
    enum StorageStart: Equatable, Sendable {
        /// Its items travel in messages and nothing else changes (an archive job's blocks, for
        /// a worker that cannot read composite sources: only the coordinator assembles them).
        case archive
        /// It reads and writes the files itself.
        case shared
        /// Its items travel in messages.
        case remote
        /// Its items wait while a probe finds out (`JobStorage.probeTimeout` at most).
        case probe
    }

    /// Decides at `now` how `peer` gets at job `job`'s files, once: nil when that is decided
    /// already, `peer` is unknown, or (a worker in `auto` mode) there is no file to probe yet.
    /// A worker in `auto` mode whose probe of the job's root answered lately (`known`,
    /// `StorageMemory`) is not probed again.
    mutating func startStorage(of peer: PeerID, job: JobID, archive: Bool, canProbe: Bool, known: SharedView?? = nil,
                               at now: ContinuousClock.Instant) -> StorageStart? {
        guard let worker = records[peer], worker.jobStorage[job] == nil else { return nil }
        if archive {
            self[peer]?.jobStorage[job] = .remote
            return .archive
        }
        switch worker.storage {
        case .shared:
            // Announced shared: it promised the coordinator's view, inode numbers and all.
            self[peer]?.jobStorage[job] = .shared(.same)
            return .shared
        case .remote:
            self[peer]?.jobStorage[job] = .remote
            return .remote
        case .auto:
            if let known {
                self[peer]?.jobStorage[job] = known.map(JobStorage.shared) ?? .remote
                return known == nil ? .remote : .shared
            }
            guard canProbe else { return nil }
            self[peer]?.jobStorage[job] = .probing(now)
            return .probe
        }
    }

    /// `peer`'s probe of job `job` ended: it shares the files, seeing `view` of their stamps,
    /// or not (nil). Returns whether a probe was waiting for that (any other answer changes nothing).
    mutating func probeAnswered(by peer: PeerID, job: JobID, view: SharedView?) -> Bool {
        guard isProbing(peer, job: job) else { return false }
        self[peer]?.jobStorage[job] = view.map(JobStorage.shared) ?? .remote
        return true
    }

    /// Whether `peer`'s probe of job `job` is out.
    func isProbing(_ peer: PeerID, job: JobID) -> Bool {
        if case .probing = records[peer]?.jobStorage[job] { return true }
        return false
    }

    /// Probes unanswered for `JobStorage.probeTimeout` at `now` (a worker from before probes, a
    /// stuck file system): each worker gets that job's items in messages from here on.
    mutating func expireProbes(at now: ContinuousClock.Instant) -> [(peer: PeerID, job: JobID)] {
        var expired: [(peer: PeerID, job: JobID)] = []
        for (peer, worker) in records {
            for (job, storage) in worker.jobStorage {
                guard case .probing(let since) = storage, now - since > JobStorage.probeTimeout else { continue }
                self[peer]?.jobStorage[job] = .remote
                expired.append((peer, job))
            }
        }
        return expired.sorted { $0.peer == $1.peer ? $0.job < $1.job : $0.peer < $1.peer }
    }

    /// Job `job` ended: no worker's way to its files matters any more.
    mutating func forget(job: JobID) {
        for peer in records.keys { self[peer]?.jobStorage.removeValue(forKey: job) }
    }
}
