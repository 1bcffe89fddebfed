import Logging
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ

/// Workers: their messages, heartbeats and liveness, departures, storage per job.
extension CoordinatorCore {
    /// A decoded message from worker `peer`.
    mutating func receive(_ message: WireMessage, from peer: PeerID) {
        switch message {
        case .workerReady(let hello):
            // Registering again: what it held is requeued, and what it still holds comes back below.
            if workers[peer] != nil { requeue(worker: peer, now: now) }
            // Checked before any arithmetic (slots times credit per slot must not overflow) and
            // before its names reach a log line.
            if let defect = hello.defect {
                countMalformed(ProtocolError.malformed(defect), from: peer)
                forget(peer)
                send(.error(ErrorReply(message: "workerReady refused: \(defect)")), to: peer)
                return
            }
            guard admitWorkerID(hello, from: peer) else { return }
            let record = workers.register(peer, hello: hello, origin: verification.origins[peer] ?? nil, at: now)
            outbox.append(.registration(peer, registered: true))
            scheduler.addWorker(peer, credit: hello.slots * creditPerSlot, relayCredit: hello.slots * Self.relayCreditPerSlot,
                                engines: record.engines)
            // Reconnecting does not lift a quarantine, nor does a new worker id with the same CURVE key.
            if verification.quarantine.isQuarantined(verification.identity(of: peer)) { scheduler.quarantine(peer) }
            let milliseconds = Int(configuration.heartbeatInterval.seconds * 1000)
            var welcome = Welcome(heartbeatMilliseconds: milliseconds, liveness: configuration.liveness)
            welcome.timings = !traces.isEmpty
            welcome.keep = hello.holding.map { keepHeld($0, by: peer) }
            clocks.forget(peer)
            send(.welcome(welcome), to: peer)
            logger.info("worker joined", metadata: [
                "worker": "\(hello.workerID)", "host": "\(hello.host)", "slots": "\(hello.slots)", "storage": "\(record.storage.rawValue)",
            ])
            for id in jobOrder { assignStorage(worker: peer, job: id) }
            pump()
            updateGauges()
        case .heartbeat:
            if !workers.heard(peer, at: now) { send(.unknownPeer, to: peer) }
        case .result(let result):
            workers.heard(peer, at: now)
            if accept(result, from: peer) { workers.credit(peer, bytes: result.blocks.reduce(0) { $0 + $1.rawLength }, at: now) }
            pump()
            sendChecksLeft(for: peer)
        case .resultRef(let result):
            workers.heard(peer, at: now)
            acceptCounting(result, from: peer)
            pump()
            sendChecksLeft(for: peer)
        case .scanned(let report):
            workers.heard(peer, at: now)
            scannedByWorker(report, from: peer)
        case .stitched(let result):
            workers.heard(peer, at: now)
            stitched(result, from: peer)
        case .verified(let report):
            workers.heard(peer, at: now)
            verified(report, from: peer)
        case .listingChecked(let answer):
            workers.heard(peer, at: now)
            listingChecked(answer, from: peer)
        case .probeReply(let reply):
            guard workers.heard(peer, at: now), workers[peer] != nil else { return }
            probeReplied(reply, from: peer)
            pump()
        case .itemFailed(let failure):
            let key = ItemKey(job: JobID(failure.jobID), item: ItemID(failure.itemID))
            workers.heard(peer, at: now)
            // Only the worker holding the item can fail it, and then it is tried elsewhere.
            switch scheduler.verdict(key, from: peer) {
            case .accepted:
                traces[key.job]?.answered(key.item, by: peer, at: micros, won: false, outcome: "failed")
                itemWentWrong(key, on: peer, reason: "compression failed: \(String(failure.reason.prefix(200)))")
            case .late, .notAssigned:
                let verdict = scheduler.fail(key, from: peer)  // frees a slower copy's credit
                countLate(verdict, of: "itemFailed", key: key, from: peer)
            case .unknownItem:
                countMalformed(ProtocolError.malformed("itemFailed for unknown item \(failure.itemID)"), from: peer)
            }
            pump()
            sendChecksLeft(for: peer)
        case .discarded(let job):
            freed(job: JobID(job), by: peer)
        case .published(let report):
            workers.heard(peer, at: now)
            published(report, from: peer)
        case .timing(let timing):
            guard let worker = workers[peer] else { return }
            workers.heard(peer, at: now)
            if let defect = timing.defect(slots: worker.hello.slots) {
                countMalformed(ProtocolError.malformed("timing: \(defect)"), from: peer)
                return
            }
            let received = micros
            clocks.sample(peer, sent: timing.endedAt, received: received)
            if traces[JobID(timing.jobID)] != nil, let offset = clocks.offset(of: peer) {
                traces[JobID(timing.jobID)]?.timing(timing, from: peer, offset: offset, receivedAt: received)
            }
        case .clock(let sent):
            guard workers.heard(peer, at: now) else { return }
            clocks.sample(peer, sent: sent, received: micros)
        case .goodbye:
            if let worker = workers[peer] {
                logger.info("worker left", metadata: ["worker": "\(worker.hello.workerID)"])
                workerGone(peer, now: now)
            }
        default:
            countMalformed(ProtocolError.malformed("unexpected \(message.type) on the worker endpoint"), from: peer)
        }
    }

    /// The items worker `peer`, registering again, says it still holds and may finish: those
    /// it held before and nobody was sent since (`Scheduler.adopt`). They are not compressed
    /// twice; the worker drops the rest.
    mutating func keepHeld(_ holding: [HeldItems], by peer: PeerID) -> [HeldItems] {
        let claimed = HeldItems.pairs(in: holding).map { ItemKey(job: JobID($0.job), item: ItemID($0.item)) }
        let kept = scheduler.adopt(claimed, by: peer)
        if kept.count < claimed.count {
            // Work held through a silence that went to others meanwhile, or whose job ended:
            // the worker drops it unanswered (the other way late work ends: `countLate`).
            logger.info("worker drops the items it held that were sent to others or ended", metadata: [
                "worker": "\(workerName(peer))", "dropped": "\(claimed.count - kept.count)", "claimed": "\(claimed.count)",
            ])
        }
        guard !kept.isEmpty else { return [] }
        metrics.itemsKept.increment(by: kept.count)
        logger.info("worker kept the items it still held", metadata: [
            "worker": "\(workerName(peer))", "items": "\(kept.count)", "claimed": "\(claimed.count)",
        ])
        return HeldItems.grouped(kept.map { (job: $0.job.value, item: $0.item.value) })
    }

    /// Puts back every item a worker held, to be sent again before new work.
    mutating func requeue(worker peer: PeerID, now: ContinuousClock.Instant) {
        guard let worker = workers[peer] else { return }
        restartStitches(now: now, leaving: peer)
        takeOverGrants(of: peer)
        for id in jobOrder { freed(job: id, by: peer, all: true) }
        let held = scheduler.removeWorker(peer)
        metrics.itemsRequeued.increment(by: held.count)
        for id in traces.keys { traces[id]?.workerLost(peer, at: micros) }
        // Worker ids are new each run: an offset kept past a worker's life would only pile up.
        clocks.forget(peer)
        if !held.isEmpty {
            logger.warning("requeued items", metadata: ["worker": "\(worker.hello.workerID)", "items": "\(held.count)"])
        }
        failStranded()
    }

    /// A send to worker `peer` failed: it is treated as gone.
    mutating func sendFailed(to peer: PeerID, error: ZMQError) {
        guard let worker = workers[peer] else { return }
        logger.warning("send to worker failed; treating it as gone", metadata: ["worker": "\(worker.hello.workerID)", "error": "\(error)"])
        workerGone(peer, now: now)
    }

    /// A worker left, fell silent or cannot be reached: its items and stitches go elsewhere,
    /// it is forgotten, and the checks it was to make are made by others.
    mutating func workerGone(_ peer: PeerID, now: ContinuousClock.Instant) {
        requeue(worker: peer, now: now)
        forget(peer)
        verifierLeft(peer, now: now)
        pump()
    }

    /// Removes `peer` from the roster; the workers' endpoint takes only the handshake from it again.
    mutating func forget(_ peer: PeerID) {
        guard workers.remove(peer) != nil else { return }
        outbox.append(.registration(peer, registered: false))
    }

    /// A message the workers' endpoint dropped as it read it. One past its type's bound, or of
    /// a type workers do not send, is malformed. One that fit came from a peer not registered
    /// when it arrived: an answer is late, as it would have been had it been read (a worker
    /// declared dead while it compressed sends those); the rest is ignored, as from any peer
    /// the coordinator does not know.
    mutating func dropped(_ message: DroppedMessage, from peer: PeerID) {
        if let defect = message.defect {
            countMalformed(defect, from: peer)
            if message.header?.type == .workerReady { refuseHello(defect, to: peer) }
            return
        }
        guard let type = message.header?.type else { return }
        guard MessageType.fromWorkers.contains(type) else {
            countMalformed(ProtocolError.malformed("unexpected \(type) on the worker endpoint"), from: peer)
            return
        }
        guard Self.answers.contains(type) else { return }
        lateResults += 1
        warn("dropped an answer from a peer that is not a registered worker", metadata: [
            "message": "\(type)", "peer": "\(peer.description)", "count": "\(lateResults)",
        ])
    }

    /// A `workerReady` that did not decode, or was too large to read, gets the `error` the
    /// protocol promises. A worker that registered before and now sends garbage stays what it
    /// was; only an unknown peer is told why it is not welcome.
    mutating func refuseHello(_ error: any Error, to peer: PeerID) {
        guard workers[peer] == nil else { return }
        send(.error(ErrorReply(message: "workerReady refused: \(String("\(error)".prefix(300)))")), to: peer)
    }

    /// What a worker sends about an item, a stitch or a check it was given.
    static let answers: Set<MessageType> = [.result, .resultRef, .scanned, .itemFailed, .stitched, .verified, .published]

    /// Counts a message from `peer` that was dropped as malformed or unexpected, and warns (throttled).
    mutating func countMalformed(_ error: any Error, from peer: PeerID) {
        malformedMessages += 1
        warn("dropped malformed message", metadata: [
            "peer": "\(peer.description)", "error": "\(error)", "count": "\(malformedMessages)",
        ])
    }

    /// Records who a worker announcing itself is, for its strikes (`VerificationBook.identities`).
    mutating func identify(_ peer: PeerID, origin: ConnectionOrigin) {
        verification.identities[peer] = VerificationBook.identity(routingID: peer, userID: origin.key)
        verification.origins[peer] = origin
    }

    /// The workers' endpoint ticked: held checks leave, quiet workers get a heartbeat, once a
    /// period liveness, probes, stitches, checks and clients are judged, writers flush, and jobs
    /// whose counters moved send progress.
    mutating func tick() {
        sendHeldChecks()
        // Any message is a sign of life: a worker sent something within the interval needs
        // no heartbeat, so a busy cluster exchanges none.
        for peer in workers.quiet(at: now) { send(.heartbeat, to: peer) }
        if workers.roundDue(at: now) {
            for peer in workers.silent(at: now) {
                logger.warning("worker silent; declared dead", metadata: ["worker": "\(workerName(peer))"])
                workerGone(peer, now: now)
            }
            expireProbes(now: now)
            // Workers that left took their credit with them.
            for id in jobOrder { refreshWindow(id) }
            restartStitches(now: now)
            expireGrants()
            logWarningSummaries(now: now)
            if verification.hasChecksOut { takeBackChecks(now: now) }
            for id in jobOrder { removeWorkspaceOnceFreed(id) }
            pump()
            checkClients(now: now)
            // Scrapes come seconds apart; joins and departures update the gauges at once.
            updateGauges()
        }
        // Sealed outputs become durable and visible in batches, at most a tick late.
        flushWriters()
        for id in jobOrder {
            guard var job = jobs[id], job.dirty, now - job.lastProgress >= configuration.progressInterval else { continue }
            if traces[id] != nil { sampleTrace(of: job) }
            job.dirty = false
            job.lastProgress = now
            emit(to: job.id, .progress(job.snapshot(workers: workers.count, now: now)))
            jobs[id] = job
        }
    }

    /// Starts finding out how `worker` gets at job `id`'s files: shared when it says so,
    /// remote when it says so, a probe when it is in `auto` mode.
    mutating func assignStorage(worker peer: PeerID, job id: JobID) {
        guard let job = jobs[id] else { return }
        let known = storageKey(of: peer, job: job).flatMap { storageSeen.answer($0, at: now) }
        // A tar job goes by reference only to a worker that reads composite sources.
        let segments = workers[peer]?.hello.capabilities?.contains(WorkerHello.segmentsCapability) == true
        guard let start = workers.startStorage(
            of: peer, job: id, archive: job.archive != nil && !segments, canProbe: job.probeSample != nil, known: known, at: now) else { return }
        switch start {
        case .archive:
            return
        case .shared:
            scheduler.setReadsItself(id, on: peer, true)
        case .remote:
            break
        case .probe:
            scheduler.pause(id, on: peer)
            send(.probe(job.probe()), to: peer)
        }
        refreshWindow(id)
    }

    /// A worker answered job `reply.jobID`'s probe. "Shared" with an answer file is confirmed
    /// by the coordinator's own reads first (`StorageConfirmation`); the job's items wait
    /// meanwhile. "Shared" without one (a worker before answer files) counts only because such
    /// a worker saw the coordinator's inode numbers.
    mutating func probeReplied(_ reply: ProbeReply, from peer: PeerID) {
        let id = JobID(reply.jobID)
        guard workers.isProbing(peer, job: id), let job = jobs[id] else { return }
        guard reply.shared else {
            storageDecided(peer, job: id, view: nil, reason: reply.reason)
            return
        }
        guard let answer = reply.answer else {
            storageDecided(peer, job: id, view: .same, reason: nil)
            return
        }
        guard reply.answerIsWellFormed else {
            countMalformed(ProtocolError.malformed("probeReply answer file \(String(answer.prefix(80)).debugDescription)"), from: peer)
            storageDecided(peer, job: id, view: nil, reason: "the answer file's name is not one the coordinator opens")
            return
        }
        outbox.append(.check(.storage(StorageConfirmation(
            peer: peer, job: id, answer: job.workspace.path.appending(Array(answer.utf8)), token: Array(job.workspace.token.utf8),
            sample: job.probeSample, sampleCRC: reply.sampleCRC, view: reply.view ?? .same))))
    }

    /// The coordinator's reads confirmed a worker's "shared" probe answer, or found why not.
    mutating func storageConfirmed(_ confirmation: StorageConfirmation, failure: String?) {
        guard workers[confirmation.peer] != nil else { return }
        storageDecided(confirmation.peer, job: confirmation.job, view: failure == nil ? confirmation.view : nil, reason: failure)
        pump()
    }

    /// How `peer` gets at job `id`'s files is decided: shared with `view`, or remote (nil).
    mutating func storageDecided(_ peer: PeerID, job id: JobID, view: SharedView?, reason: String?) {
        guard workers.probeAnswered(by: peer, job: id, view: view) else { return }
        if let job = jobs[id], let key = storageKey(of: peer, job: job) {
            storageSeen.record(key, view: view, at: now)
        }
        scheduler.setReadsItself(id, on: peer, view != nil)
        scheduler.resume(id, on: peer)
        var metadata: Logger.Metadata = ["worker": "\(workerName(peer))", "job": "\(id)", "reason": "\(String((reason ?? "-").prefix(200)).debugDescription)"]
        if let view, view != .same { metadata["sees"] = "\(view.inodes ? "inode numbers" : "its own inode numbers"), mtimes to the \(view.nanoseconds ? "nanosecond" : "second")" }
        logger.info(view != nil ? "worker sees the job's files: shared storage" : "worker does not see the job's files: remote", metadata: metadata)
    }

    /// The worker process, source root and destination folder a probe answer stands for.
    func storageKey(of peer: PeerID, job: JobRecord) -> StorageMemory.Key? {
        guard let hello = workers[peer]?.hello else { return nil }
        return StorageMemory.Key(workerID: hello.workerID, pid: hello.pid, bootID: hello.bootID, root: job.sourceRoot, outputs: job.destination.parent)
    }

    /// A worker that leaves a probe unanswered (a worker from before probes, a stuck file
    /// system) gets the job's items in messages.
    mutating func expireProbes(now: ContinuousClock.Instant) {
        for (peer, job) in workers.expireProbes(at: now) {
            scheduler.resume(job, on: peer)
            logger.warning("storage probe unanswered; sending the job's blocks in messages", metadata: [
                "worker": "\(workerName(peer))", "job": "\(job)",
            ])
        }
    }
}
