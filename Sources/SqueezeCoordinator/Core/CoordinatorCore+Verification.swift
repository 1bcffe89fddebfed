import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ

/// The result check: no answer reaches a writer before its blocks are proven to decode to
/// what was planned (see docs/architecture.md, "Checking results").
extension CoordinatorCore {
    /// Whether job `id`'s answers are checked.
    func checksResults(of id: JobID) -> Bool {
        !verification.uncheckedJobs.contains(id)
    }

    /// A reader read an item for a remote worker: what it read is kept until the answer is
    /// checked. Called before the `work` message leaves, so no answer can come first.
    mutating func recordSources(_ item: ItemKey, _ blocks: [BlockRef: SourceBlock]) {
        guard jobs[item.job]?.state == .running else { return }
        verification.sources[item] = blocks
    }

    /// Queues an admitted remote answer for its check.
    mutating func check(_ result: WorkResult, item: ItemKey, from peer: PeerID, expected: [BlockRef]) {
        let sources = verification.sources[item]
        let checks = zip(expected, result.blocks).map { ref, block -> CheckedBlock in
            let isLast = jobs[item.job]?.open[ref.file]?.plan.layout.isLast(ref.index) ?? true
            return .received(block, source: sources?[ref], isLast: isLast)
        }
        submitCheck(VerificationRequest(
            item: item, worker: peer, expected: expected, blocks: result.blocks.map(PendingBlock.bytes), checks: checks))
    }

    /// Queues an admitted shared-storage answer for its check: each piece is read back, and
    /// its source range read again.
    mutating func check(pieces blocks: [PendingBlock?], item: ItemKey, from peer: PeerID, expected: [BlockRef]) {
        guard let request = pieceVerification(blocks, item: item, from: peer, expected: expected) else { return }
        submitCheck(request)
    }

    /// The check of a shared-storage answer, as `submitCheck` and the local check take it.
    func pieceVerification(_ blocks: [PendingBlock?], item: ItemKey, from peer: PeerID, expected: [BlockRef]) -> VerificationRequest? {
        guard let job = jobs[item.job] else { return nil }
        let checks = zip(expected, blocks).map { ref, block -> CheckedBlock in
            guard case .piece(let piece)? = block, let file = job.open[ref.file]?.plan else { return .skipped }
            let range = file.layout.range(of: ref.index)
            let dictionary = Self.dictionaryRange(of: ref.index, in: file, setting: job.setting)
            return .written(WrittenBlock(
                path: piece.path, offset: piece.offset, length: piece.length, source: job.sourcePath(of: file), stamp: file.stamp,
                sourceRange: dictionary.lowerBound..<range.upperBound,
                dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound),
                claim: BlockClaim(crc: piece.crc, rawLength: piece.rawLength, isLast: file.layout.isLast(ref.index)),
                segments: job.segments(of: dictionary.lowerBound..<range.upperBound),
                header: file.layout.count == 1 ? header(of: file, in: job).encoded() : nil))
        }
        return VerificationRequest(item: item, worker: peer, expected: expected, blocks: blocks, checks: checks)
    }

    /// Sends an answer to another worker for its check, or checks it here when there is none
    /// able to (docs/architecture.md, "Checking results").
    mutating func submitCheck(_ request: VerificationRequest, excluding excluded: Set<PeerID> = []) {
        // A claim that differs from the CRC read at dispatch needs no decoding to refuse.
        for check in request.checks {
            if case .received(let block, let source?, _) = check, source.crc != block.crc {
                refuse(request.item, from: request.worker, reason: "claimed CRC-32 differs from that of the bytes sent")
                return
            }
        }
        guard let (verify, claims, byReference) = verifyItem(for: request) else {
            checkLocally(request)
            return
        }
        var excluded = excluded
        if case .audited(let verifier) = request.verdict { excluded.insert(verifier) }
        let candidates = verifierCandidates(job: request.item.job)
        guard let verifier = VerifierChoice.choose(
            among: candidates, compressor: request.worker, byReference: byReference.contains(true),
            independentOf: vouchers(of: request), excluding: excluded) else {
            countCheckForIndependence(among: candidates, compressor: request.worker, byReference: byReference.contains(true), excluding: excluded)
            checkLocally(request)
            return
        }
        let id = verification.nextCheckID
        verification.nextCheckID += 1
        verification.pending[id] = PendingCheck(request: request, verifier: verifier, sentAt: now, claims: claims, byReference: byReference)
        verification.checkedByWorkers += 1
        if case .audited = request.verdict { verification.auditsByWorkers += 1 }
        var message = verify
        message.checkID = id
        // The verifier compares of each source's stamp what its view of the files keeps.
        if let view = workers[verifier]?.view(for: request.item.job), view != .same { message.setView(view) }
        if OutgoingChecks.shouldHold(verifierInFlight: scheduler.busy(verifier), carriesBytes: byReference.contains(false)) {
            verification.outgoing.hold(message, for: verifier)
        } else {
            sendVerify(message, to: verifier)
        }
    }

    /// Sends the checks still waiting for a dispatch to their verifier: on every tick, so
    /// none waits more than one.
    mutating func sendHeldChecks() {
        guard !verification.outgoing.isEmpty else { return }
        for (verifier, requests) in verification.outgoing.takeAll() {
            for request in requests { sendVerify(request, to: verifier) }
        }
    }

    /// Sends the checks still held for `peer` once its answer was handled and `pump` gave it no
    /// dispatch to ride with: none is coming before its next answer, and the job's window may
    /// be waiting for these checks.
    mutating func sendChecksLeft(for peer: PeerID) {
        for request in verification.outgoing.take(for: peer) { sendVerify(request, to: peer) }
    }

    /// The coordinator's own check, on its verification threads.
    mutating func checkLocally(_ request: VerificationRequest) {
        guard started else {
            // Not running (no checker tasks): nothing can be checked, so nothing is written.
            reopen(request.item, refusing: request.worker, reason: "the coordinator is not running its checks")
            return
        }
        verification.checkedLocally += 1
        if case .audited = request.verdict { verification.auditsLocally += 1 }
        outbox.append(.check(.answer(request)))
    }

    /// The `verify` item for an answer: its blocks with their bytes (remote) or where they are
    /// (shared), the claimed CRCs kept back. Nil when some block cannot go (no dictionary was
    /// kept for it): the coordinator checks that answer itself.
    func verifyItem(for request: VerificationRequest) -> (VerifyRequest, [UInt32], [Bool])? {
        var blocks: [VerifyBlock] = []
        var claims: [UInt32] = []
        var byReference: [Bool] = []
        for check in request.checks {
            switch check {
            case .skipped:
                continue
            case .received(let block, let source, let isLast):
                guard let source else { return nil }
                blocks.append(.inline(InlineVerifyBlock(
                    dictionary: ZMQFrame(source.dictionary), deflate: block.bytes, rawLength: block.rawLength, isLast: isLast)))
                claims.append(block.crc)
                byReference.append(false)
            case .written(let written):
                var reference = VerifyReference(
                    sourcePath: written.source.bytes, size: written.stamp.size, modifiedSeconds: written.stamp.modifiedSeconds,
                    modifiedNanoseconds: written.stamp.modifiedNanoseconds, inode: written.stamp.inode,
                    sourceOffset: written.sourceRange.lowerBound, dictionaryLength: written.dictionaryLength,
                    rawLength: written.claim.rawLength, isLast: written.claim.isLast, compressedPath: written.path.bytes,
                    compressedOffset: written.offset, compressedLength: written.length, header: written.header)
                reference.segments = written.segments?.map(\.wire)
                blocks.append(.reference(reference))
                claims.append(written.claim.crc)
                byReference.append(true)
            }
        }
        guard !blocks.isEmpty else { return nil }
        return (VerifyRequest(checkID: 0, jobID: request.item.job.value, itemID: request.item.item.value, blocks: blocks), claims, byReference)
    }

    /// The principals that stand behind `request`: the worker that compressed it and, for an
    /// audit, the verifier that said good. Nil when one of them left (who it was is forgotten).
    func vouchers(of request: VerificationRequest) -> [Principal]? {
        guard let compressor = workers[request.worker]?.principal else { return nil }
        switch request.verdict {
        case .audited(let verifier), .auditContested(let verifier, _):
            guard let principal = workers[verifier]?.principal else { return nil }
            return [compressor, principal]
        case .none, .contested:
            return [compressor]
        }
    }

    /// The workers as the verifier choice sees them: able to verify when they announced `capability`.
    func verifierCandidates(job: JobID, capability: String = WorkerHello.verifyCapability) -> [VerifierCandidate] {
        workers.all.map { worker in
            VerifierCandidate(
                id: worker.routingID, principal: worker.principal, canVerify: worker.hello.capabilities?.contains(capability) == true,
                quarantined: verification.quarantine.isQuarantined(verification.identity(of: worker.routingID)),
                late: verification.lateVerifiers.contains(verification.identity(of: worker.routingID)), seesStorage: worker.isShared(for: job),
                load: scheduler.busy(worker.routingID) + verification.pendingCount(of: worker.routingID))
        }
    }

    /// A verifier's answer. Only the verifier the check went to may answer it, once; a check
    /// the coordinator took back (deadline, job ended) makes a late answer, ignored.
    mutating func verified(_ report: VerifyReport, from peer: PeerID) {
        if let batch = verification.batches[report.checkID] {
            batchVerified(report, pending: batch, from: peer)
            return
        }
        if let segment = verification.segments[report.checkID] {
            segmentVerified(report, pending: segment, from: peer)
            return
        }
        guard let pending = verification.pending[report.checkID] else { return }
        guard answeredByItsVerifier(pending.verifier, report, from: peer) else { return }
        verification.pending.removeValue(forKey: report.checkID)
        guard jobs[pending.request.item.job]?.state == .running else { return }
        var request = pending.request
        switch VerdictReading.read(report.findings, claims: pending.claims, byReference: pending.byReference) {
        case .good:
            // A verdict that is itself an audit stands; any other is audited one time in
            // `interval`, by a third principal or here.
            if case .none = request.verdict, verification.audit.shouldAudit(roll: rolls.next()) {
                request.verdict = .audited(peer)
                submitCheck(request)
                return
            }
            request.recordStoredCRCs(report.findings.map(\.storedCRC), reporter: peer)
            var vouchers = [request.worker, peer]
            if case .audited(let verifier) = request.verdict { vouchers.append(verifier) }
            recordVouching(vouchers, job: request.item.job)
            checked(request, defect: nil)
        case .bad:
            // Confirmed here before anyone gets a strike: a lying verifier cannot get an
            // honest worker quarantined, only itself.
            if case .audited(let verifier) = request.verdict {
                request.verdict = .auditContested(verifier: verifier, auditor: peer)
            } else {
                request.verdict = .contested(by: peer)
            }
            checkLocally(request)
        case .unreadable(let reason):
            logger.debug("verifier could not read the blocks; checking here", metadata: ["reason": "\(String(reason.prefix(200)).debugDescription)"])
            checkLocally(request)
        }
    }

    /// Counts a check the coordinator does itself because every worker able to do it shares a
    /// principal with those vouching (none is able at all: not counted).
    mutating func countCheckForIndependence(among candidates: [VerifierCandidate], compressor: PeerID, byReference: Bool, excluding: Set<PeerID> = []) {
        guard VerifierChoice.lacksIndependence(among: candidates, compressor: compressor, byReference: byReference, excluding: excluding) else { return }
        verification.checkedForIndependence += 1
        metrics.checksForIndependence.increment()
    }

    /// Whether `peer` is the verifier a check went to; an answer from anyone else is malformed
    /// (counted) and changes nothing.
    mutating func answeredByItsVerifier(_ verifier: PeerID, _ report: VerifyReport, from peer: PeerID) -> Bool {
        guard verifier == peer else {
            countMalformed(ProtocolError.malformed("verified for check \(report.checkID), which went to another worker"), from: peer)
            return false
        }
        return true
    }

    /// A worker is gone: its checks are done here, and who it was is forgotten (it says again
    /// when it comes back).
    mutating func verifierLeft(_ peer: PeerID, now: ContinuousClock.Instant) {
        verification.identities.removeValue(forKey: peer)
        verification.origins.removeValue(forKey: peer)
        verification.outgoing.forget(verifier: peer)
        takeBackChecks(now: now, from: peer)
    }

    /// Checks whose verifier did not answer in time, or left, are done here instead.
    mutating func takeBackChecks(now: ContinuousClock.Instant, from gone: PeerID? = nil) {
        let overdue = verification.pending.filter { id, check in
            check.verifier == gone || now - check.sentAt > configuration.verifyDeadline
        }
        for (id, check) in overdue.sorted(by: { $0.key < $1.key }) {
            verification.pending.removeValue(forKey: id)
            if gone == nil { markLate(check.verifier) }
            guard jobs[check.request.item.job]?.state == .running else { continue }
            checkLocally(check.request)
        }
        let overdueSegments = verification.segments.filter { id, pending in
            pending.verifier == gone || now - pending.sentAt > configuration.verifyDeadline
        }
        for (id, pending) in overdueSegments.sorted(by: { $0.key < $1.key }) {
            verification.segments.removeValue(forKey: id)
            if gone == nil { markLate(pending.verifier) }
            checkLocally(pending.check)
        }
        takeBackBatchChecks(now: now, from: gone)
        takeBackListingChecks(now: now, from: gone)
    }

    /// A verifier let a check pass its deadline. Not a strike (it may be slow, not hostile),
    /// but it is not asked again: a verifier that never answers would otherwise hold every
    /// output it is given.
    mutating func markLate(_ verifier: PeerID) {
        verification.lateVerifiers.insert(verification.identity(of: verifier))
        logger.warning("verifier did not answer in time; checking here, and not asking it again", metadata: [
            "verifier": "\((workers[verifier]?.hello.workerID ?? String(verifier.description)).debugDescription)",
        ])
    }

    /// The check of an answer is done: a good one goes to the writers, a bad one is dropped,
    /// its item goes to another worker, and its sender gets a strike. A verifier whose word the
    /// check contradicts gets one too.
    mutating func checked(_ request: VerificationRequest, defect: BlockDefect?) {
        let key = request.item
        verification.sources.removeValue(forKey: key)
        guard jobs[key.job]?.state == .running else { return }
        defer { pump() }
        switch (request.verdict, defect) {
        case (.contested(let verifier), nil), (.auditContested(_, let verifier), nil):
            strike(verifier, reason: "it called a good answer bad")
        case (.audited(let verifier), let defect?), (.auditContested(let verifier, _), let defect?):
            collusionCaught(compressor: request.worker, verifier: verifier, item: key, reason: defect.reason)
        default:
            break
        }
        guard let defect else {
            hand(key, expected: request.expected, blocks: request.blocks, from: request.worker)
            return
        }
        refuse(key, from: request.worker, reason: defect.reason)
    }

    /// Drops a refused answer: the item is unanswered again and goes elsewhere; the worker is
    /// counted, logged the first time, and quarantined at the threshold (logged once more).
    /// A worker proven to answer wrongly may have had other wrong answers accepted on a
    /// colluding verifier's word: every running job that took any of its answers on a
    /// worker's word has its outputs checked again before it completes.
    mutating func refuse(_ key: ItemKey, from peer: PeerID, reason: String) {
        verification.refusedResults += 1
        metrics.refusedResults.increment()
        reopen(key, refusing: peer, reason: "its result failed the check: \(reason)")
        strike(peer, reason: reason, item: key)
        let identity = verification.identity(of: peer)
        for id in jobOrder { suspect([identity], in: id) }
    }

    /// Counts a strike against `peer` (a wrong answer, a wrong verdict, a wrong stitch): logged
    /// the first time (as `what`, by default by whether it concerns an item), quarantined at the
    /// threshold (logged once more).
    mutating func strike(_ peer: PeerID, reason: String, item key: ItemKey? = nil, what: String? = nil) {
        let name = workers[peer]?.hello.workerID ?? String(peer.description)
        switch verification.quarantine.strike(verification.identity(of: peer)) {
        case .first:
            let what = what ?? (key == nil ? "verdict refused: the coordinator's own check says otherwise"
                : "result refused: it does not decode to what was sent; the item goes to another worker")
            logger.warning("\(what)", metadata: [
                "worker": "\(name.debugDescription)", "job": "\(key?.job ?? 0)", "item": "\(key?.item ?? 0)",
                "reason": "\(String(reason.prefix(200)).debugDescription)",
            ])
        case .repeated:
            logger.debug("strike", metadata: ["worker": "\(name.debugDescription)", "reason": "\(String(reason.prefix(200)).debugDescription)"])
        case .quarantined:
            logger.error("worker quarantined: too many refused results or verdicts; it gets no more work", metadata: [
                "worker": "\(name.debugDescription)", "refused": "\(verification.quarantine.strikes(of: verification.identity(of: peer)))",
            ])
            withdraw(peer)
        }
    }

    /// An audit found an answer bad that `verifier` had called good: it and `compressor`
    /// vouched for corrupt bytes together. Both are quarantined at once, with every worker
    /// under their identities, and every running job they touched is checked again before it
    /// completes (`JobRecord.suspects`).
    mutating func collusionCaught(compressor: PeerID, verifier: PeerID, item key: ItemKey, reason: String) {
        verification.collusionsCaught += 1
        metrics.collusionsCaught.increment()
        let suspects = [compressor, verifier].map { verification.identity(of: $0) }
        logger.error("collusion caught: a verifier called a bad answer good; both workers are quarantined and their work in running jobs is checked again", metadata: [
            "worker": "\(workerName(compressor).debugDescription)", "verifier": "\(workerName(verifier).debugDescription)",
            "job": "\(key.job)", "item": "\(key.item)", "reason": "\(String(reason.prefix(200)).debugDescription)",
        ])
        for identity in suspects where verification.quarantine.quarantine(identity) {
            for worker in workers.all where verification.identity(of: worker.routingID) == identity { withdraw(worker.routingID) }
        }
        for id in jobOrder { suspect(suspects, in: id) }
    }

    /// A quarantined worker gets no more work, and its checks go to others or are done here.
    mutating func withdraw(_ peer: PeerID) {
        scheduler.quarantine(peer)
        takeBackChecks(now: now, from: peer)
    }
}
