import SqueezeIO
import Logging
import SqueezeProtocol

/// What the coordinator does about peers that go wrong: items retried on other workers,
/// worker ids kept unique, and warnings a peer could repeat at will rate-limited.
extension CoordinatorCore {
    /// Least time between two log lines of one kind of repeated warning.
    static let warningInterval = Duration.seconds(10)

    /// Logs a warning a peer can cause at will through the throttle: the first of its kind at
    /// once, later ones only counted, summarized at most once per `warningInterval`.
    mutating func warn(_ kind: String, metadata: Logger.Metadata) {
        guard let unlogged = warnings.admit(kind, now: now) else { return }
        var metadata = metadata
        if unlogged > 0 { metadata["not-logged-since-last"] = "\(unlogged)" }
        logger.warning("\(kind)", metadata: metadata)
    }

    /// The summary lines due: how many of each kind of warning were not logged.
    mutating func logWarningSummaries(now: ContinuousClock.Instant) {
        for (kind, count) in warnings.due(now: now) {
            logger.warning("\(kind): \(count) more not logged", metadata: ["not-logged": "\(count)"])
        }
    }

    /// Counts an answer that does not count: `late` (the item was done or its job ended: a
    /// slower copy, which is normal) or `notAssigned` (the sender does not hold it: warned).
    mutating func countLate(_ verdict: ResultVerdict, of kind: String, key: ItemKey, from peer: PeerID) {
        lateResults += 1
        guard verdict == .notAssigned else { return }
        warn("dropped an answer from a worker not holding its item", metadata: [
            "message": "\(kind)", "job": "\(key.job)", "item": "\(key.item)",
            "worker": "\(workerName(peer))", "count": "\(lateResults)",
        ])
    }

    /// Item `key` went wrong on `peer`, which holds it (its `itemFailed`, or a result
    /// refused): it goes to another worker, never back to this one; once it has gone wrong on
    /// `ItemRetries.limit` workers, or no other connected worker can take it, its files fail.
    mutating func itemWentWrong(_ key: ItemKey, on peer: PeerID, reason: String) {
        let decision = scheduler.wentWrong(key, on: peer)
        switch decision {
        case .retry, .stillHeld:
            warn("item went wrong on a worker; it goes to another", metadata: [
                "job": "\(key.job)", "item": "\(key.item)", "worker": "\(workerName(peer))", "reason": "\(reason.debugDescription)",
            ])
        case .giveUp:
            failFiles(of: key, reason: reason)
        case .notHolder:
            lateResults += 1
        }
        pump()
    }

    /// An answer accepted, then refused after all (it failed its check, or its worker could
    /// not read the source): the item goes to a worker it has not gone wrong on, or its files
    /// fail when none is left (`Scheduler.reopen`).
    mutating func reopen(_ key: ItemKey, refusing peer: PeerID, reason: String) {
        traces[key.job]?.refused(key.item, at: micros)
        metrics.itemsRequeued.increment()
        if scheduler.reopen(key, refusing: peer) == .giveUp { failFiles(of: key, reason: reason) }
    }

    /// Retried items whose every capable worker has gone wrong on them (the others left):
    /// their files fail instead of waiting forever.
    mutating func failStranded() {
        for key in scheduler.takeStranded() {
            failFiles(of: key, reason: "every worker that could compress it failed it")
        }
    }

    /// Fails the files of an item given up, and settles it.
    mutating func failFiles(of key: ItemKey, reason: String) {
        // A scan item no worker could list: the coordinator lists it.
        if let slice = jobs[key.job]?.items[key.item]?.scan {
            settle(key)
            scanLocally(slice, job: key.job)
            return
        }
        // A batch's files are failed one by one, as open files.
        expandBatch(key)
        let blocks = jobs[key.job].map { $0.sentBlocks[key.item] ?? $0.items[key.item]?.blocks ?? [] } ?? []
        settle(key)
        guard jobs[key.job]?.state == .running else { return }
        var failed = Set<Int>()
        for block in blocks where failed.insert(block.file).inserted {
            fileFailed(FileKey(job: key.job, file: block.file), reason: reason)
        }
    }

    /// Whether a `workerReady` may register: its `workerID` must not be that of another live
    /// worker (another connection). A second worker with a taken id is refused with an
    /// `error` naming the id, and counted; it may try again once the first has left. The same
    /// connection announcing itself again is a re-registration, not a clash.
    mutating func admitWorkerID(_ hello: WorkerHello, from peer: PeerID) -> Bool {
        guard let holder = workers.holder(of: hello, otherThan: peer) else { return true }
        countMalformed(ProtocolError.malformed("workerID \(hello.workerID.debugDescription) is already registered by another connection"), from: peer)
        send(.error(ErrorReply(message: "worker id \(hello.workerID.debugDescription) is already in use by a live worker (host \(holder.hello.host.debugDescription)); choose another --id")), to: peer)
        return false
    }

    /// A worker's id for log lines: its announced (validated) id, or its routing id escaped.
    func workerName(_ peer: PeerID) -> String {
        workers[peer]?.hello.workerID ?? peer.description
    }
}
