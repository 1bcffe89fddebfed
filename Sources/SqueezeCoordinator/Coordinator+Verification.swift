import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// The result check: no answer reaches a writer before its blocks are proven to decode to
/// what was planned (see docs/architecture.md, "Checking results").
extension Coordinator {
    /// Whether job `id`'s answers are checked.
    func checksResults(of id: UInt64) -> Bool {
        !verification.uncheckedJobs.contains(id)
    }

    /// A reader read an item for a remote worker: what it read is kept until the answer is
    /// checked. Called before the `work` message leaves, so no answer can come first.
    func recordSources(_ item: ItemKey, _ blocks: [BlockRef: SourceBlock]) {
        guard jobs[item.job]?.state == .running else { return }
        verification.sources[item] = blocks
    }

    /// Queues an admitted remote answer for its check.
    func check(_ result: WorkResult, item: ItemKey, from peer: [UInt8], expected: [BlockRef]) {
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
    func check(pieces blocks: [PendingBlock?], item: ItemKey, from peer: [UInt8], expected: [BlockRef]) {
        guard let job = jobs[item.job] else { return }
        let checks = zip(expected, blocks).map { ref, block -> CheckedBlock in
            guard case .piece(let piece)? = block, let file = job.open[ref.file]?.plan else { return .skipped }
            let range = file.layout.range(of: ref.index)
            let dictionary = Self.dictionaryRange(of: ref.index, in: file, setting: job.setting)
            return .written(WrittenBlock(
                path: piece.path, offset: piece.offset, length: piece.length, source: job.sourcePath(of: file), stamp: file.stamp,
                sourceRange: dictionary.lowerBound..<range.upperBound,
                dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound),
                claim: BlockClaim(crc: piece.crc, rawLength: piece.rawLength, isLast: file.layout.isLast(ref.index)),
                header: file.layout.count == 1 ? header(of: file, in: job).encoded() : nil))
        }
        submitCheck(VerificationRequest(item: item, worker: peer, expected: expected, blocks: blocks, checks: checks))
    }

    private func submitCheck(_ request: VerificationRequest) {
        guard let verifySink else {
            // Not running (no checker tasks): nothing can be checked, so nothing is written.
            scheduler.reopen(request.item, refusing: request.worker)
            return
        }
        verifySink.yield(request)
    }

    /// The check of an answer is done: a good one goes to the writers, a bad one is dropped,
    /// its item goes to another worker, and its sender gets a strike.
    func checked(_ request: VerificationRequest, defect: BlockDefect?) {
        let key = request.item
        verification.sources.removeValue(forKey: key)
        guard jobs[key.job]?.state == .running else { return }
        defer { pump() }
        guard let defect else {
            hand(key, expected: request.expected, blocks: request.blocks)
            return
        }
        refuse(key, from: request.worker, reason: defect.reason)
    }

    /// Drops a refused answer: the item is unanswered again and goes elsewhere; the worker is
    /// counted, logged the first time, and quarantined at the threshold (logged once more).
    func refuse(_ key: ItemKey, from peer: [UInt8], reason: String) {
        verification.refusedResults += 1
        scheduler.reopen(key, refusing: peer)
        let name = workers[peer]?.hello.workerID ?? String(decoding: peer, as: UTF8.self)
        switch verification.quarantine.strike(peer) {
        case .first:
            logger.warning("result refused: it does not decode to what was sent; the item goes to another worker", metadata: [
                "worker": "\(name.debugDescription)", "job": "\(key.job)", "item": "\(key.item)",
                "reason": "\(String(reason.prefix(200)).debugDescription)",
            ])
        case .repeated:
            logger.debug("result refused", metadata: ["worker": "\(name.debugDescription)", "reason": "\(String(reason.prefix(200)).debugDescription)"])
        case .quarantined:
            logger.error("worker quarantined: too many refused results; it gets no more work", metadata: [
                "worker": "\(name.debugDescription)", "refused": "\(verification.quarantine.strikes(of: peer))",
            ])
            scheduler.quarantine(peer)
        }
    }

    /// Checks answers on the verification threads, one request at a time per task.
    nonisolated func runChecker(_ requests: AsyncStream<VerificationRequest>, pool: BlockingIOPool) async {
        for await request in requests {
            let checks = request.checks
            let defect: BlockDefect?
            do {
                defect = try await pool.run { ResultChecker.check(checks) }
            } catch {
                // The pool stopped: the coordinator is shutting down and the job with it.
                continue
            }
            await checked(request, defect: defect)
        }
    }
}
