import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol

/// Batches (docs/architecture.md, "Batches"): a bundle of one-block files goes to a worker
/// that takes batches as one `batch`, its answer to a verifier as one `verifyBatch`, and back
/// to the worker as one grant; the job holds the files inside the item and counts them, with
/// no open file, writer command or check entry per file. An audit is one more `verifyBatch`
/// to a third principal; a verdict other than good, a late verifier or none able has the
/// coordinator check the batch itself, as a batch. Whatever leaves that path (a worker that
/// does not take batches, a failed read, an answer of the wrong shape, a defect found here, a
/// grant taken over) expands the batch into an ordinary bundle (`JobRecord.expand`), and the
/// rules for bundles apply from there.
extension CoordinatorCore {
    /// Whether worker `peer` takes job `id`'s batches: it sees the files, publishes what it
    /// wrote, and announced `batches`.
    func takesBatches(_ peer: PeerID, job id: JobID) -> Bool {
        publishes(peer, job: id) && workers[peer]?.hello.capabilities?.contains(WorkerHello.batchesCapability) == true
    }

    /// Sends an assigned batch as one `batch` when its worker takes batches, and says so. An
    /// item that is not a batch returns false; so does a batch whose worker does not take
    /// batches, expanded first: it goes as an ordinary bundle.
    mutating func dispatchBatch(_ assignment: Assignment) -> Bool {
        let key = assignment.item
        guard let held = jobs[key.job]?.items[key.item]?.files else { return false }
        let blocks = jobs[key.job].flatMap { Self.memberBlocks(of: held, job: $0) }
        guard jobs[key.job]?.state == .running, takesBatches(assignment.worker, job: key.job), let worker = workers[assignment.worker],
              blocks == nil || takesWholeFiles(assignment.worker), var job = jobs.removeValue(forKey: key.job) else {
            expandBatch(key)
            return false
        }
        defer { jobs[key.job] = job }
        let files = job.items[key.item]?.files ?? []
        let attempt = nextAttempt.take()
        job.attempts[key.item, default: [:]][assignment.worker] = attempt
        var batch = BatchAssignment(
            jobID: key.job.value, itemID: key.item.value, attempt: attempt.value, setting: job.setting, headerLevel: job.request.level,
            workspace: job.workspace.path.bytes, root: job.sourceRoot.bytes, syncPieces: !worker.sharesKernel, files: files.map(\.batchFile))
        batch.view = worker.view(for: key.job) ?? .same
        batch.memberBlocks = blocks
        if traces[key.job] != nil {
            traceDispatch(assignment, blocks: files.count, bytes: Int(clamping: files.reduce(0) { $0 + $1.stamp.size }))
        }
        send(.batch(batch), to: assignment.worker)
        for check in verification.outgoing.take(for: assignment.worker) { sendVerify(check, to: assignment.worker) }
        return true
    }

    /// Takes a worker's answer to a batch: a clean one (a piece per file, each of its file's
    /// length, no failure) from the worker holding it, for the attempt it was given, goes to
    /// its check. Returns nil when the answer is for the usual path instead: not a batch, not
    /// (or no longer) the accepted holder's, or not clean (the batch is then expanded).
    mutating func acceptBatch(_ result: RefResult, from peer: PeerID) -> Bool? {
        let key = ItemKey(job: JobID(result.jobID), item: ItemID(result.itemID))
        guard let files = jobs[key.job]?.items[key.item]?.files, case .accepted = scheduler.verdict(key, from: peer),
              let given = jobs[key.job]?.attempts[key.item]?[peer], given.value == result.attempt else { return nil }
        guard result.pieces.count == files.count, zip(files, result.pieces).allSatisfy({ Self.isClean($1, of: $0) }) else {
            guard files.allSatisfy({ $0.layout.count == 1 }) else {
                // Its pieces would not line up with the bundle left once the whole files leave:
                // the answer is dropped and the bundle goes to another worker, where a file
                // that cannot be read fails as any bundle's.
                expandBatch(key)
                itemWentWrong(key, on: peer, reason: "a batch answer with a failed or misshapen piece")
                return false
            }
            expandBatch(key)
            return nil
        }
        guard jobs[key.job]?.state == .running else {
            lateResults += 1
            return false
        }
        if let since = scheduler.heldSince(key, by: peer) { CoordinatorMetrics.record(now - since, in: metrics.itemDuration) }
        _ = scheduler.complete(key, from: peer, now: now)
        traces[key.job]?.answered(key.item, by: peer, at: micros, won: true)
        jobs[key.job]?.attempts.removeValue(forKey: key.item)
        if checksResults(of: key.job) {
            checkBatch(key, worker: peer, attempt: given, pieces: result.pieces)
        } else {
            grantBatch(key, worker: peer, attempt: given, pieces: result.pieces)
        }
        return true
    }

    /// Turns batch `key` into an ordinary bundle (counted); returns its blocks and the position
    /// in the batch of each, nil when it is not a batch. Its whole files of several blocks
    /// leave it first (`splitWholeFiles`): a bundle holds one-block files. `granted`: the batch
    /// was granted to its worker, which may have renamed those files' members into place.
    @discardableResult
    mutating func expandBatch(_ key: ItemKey, granted: Bool = false) -> (refs: [BlockRef], positions: [Int])? {
        guard let files = jobs[key.job]?.items[key.item]?.files else { return nil }
        let positions = files.indices.filter { files[$0].layout.count == 1 }
        if positions.count < files.count { splitWholeFiles(key, keeping: positions, granted: granted) }
        guard let refs = jobs[key.job]?.expand(key.item) else { return nil }
        metrics.batchesExpanded.increment()
        batchesExpanded += 1
        return (refs, positions)
    }

    /// Takes batch `key`'s whole files of several blocks out of it and plans them afresh, as
    /// any multi-block file (items of their own, stitched): what leaves the batch path is for
    /// one-block files only. Pieces a worker wrote of them are not used. Out of a `granted`
    /// batch (its grant taken over), each replaces its output: the worker may have renamed
    /// the member it was granted into place before it was lost, and that output, the job's
    /// own, must not fail the file as one that existed before.
    mutating func splitWholeFiles(_ key: ItemKey, keeping positions: [Int], granted: Bool = false) {
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        let files = job.items[key.item]?.files ?? []
        let whole = files.filter { $0.layout.count > 1 }.map { file in
            var file = file
            if granted { file.replacesOwnOutput = true }
            return file
        }
        job.items[key.item]?.files = positions.map { files[$0] }
        job.items[key.item]?.bytes = Int(clamping: positions.reduce(UInt64(0)) { $0 + files[$1].stamp.size })
        let items = job.planner.add(whole)
        job.adopt(files: whole, items: items)
        traces[key.job]?.queued(items.lazy.map(\.id), at: micros)
        let window = self.window(for: job)
        jobs[key.job] = job
        scheduler.addItems(key.job, count: items.count, window: window, bytes: items.map { UInt64(max(0, $0.bytes)) })
    }

    /// Whether worker `peer` compresses and checks whole files of several blocks in batches.
    func takesWholeFiles(_ peer: PeerID) -> Bool {
        workers[peer]?.hello.capabilities?.contains(WorkerHello.wholeFilesCapability) == true
    }

    /// How a batch of `files` cuts its files of several blocks (a scan's by a worker that
    /// announced `wholeFiles`); nil when every file is one block.
    static func memberBlocks(of files: [PlannedFile], job: JobRecord) -> MemberBlocks? {
        guard files.contains(where: { $0.layout.count > 1 }) else { return nil }
        return MemberBlocks(blockSize: job.planner.blockSize, engine: job.setting.engine)
    }

    /// Whether `piece` can be file `file`'s whole member: no failure, its length, and a size a
    /// member of it can have.
    static func isClean(_ piece: PieceReport, of file: PlannedFile) -> Bool {
        let most = UInt64(ProtocolLimits.maxCompressedBytes(forRaw: Int(file.stamp.size))) + UInt64(ProtocolLimits.maxHeaderBytes) + 8
        return piece.failure == nil && UInt64(piece.rawLength) == file.stamp.size && (18...most).contains(piece.pieceLength)
    }

    /// Sends a batch's answer to a verifier of another principal that takes batches; with
    /// none, the coordinator checks the batch itself.
    mutating func checkBatch(_ key: ItemKey, worker peer: PeerID, attempt: AttemptID, pieces: [PieceReport]) {
        // A listing check that waited for this batch and could not ride with it goes alone.
        defer { releaseDeferredListing(key) }
        guard let compressor = workers[peer]?.principal, jobs[key.job]?.items[key.item]?.files != nil else {
            expandAnswer(key, worker: peer, attempt: attempt, pieces: pieces, verdict: .none, locally: false)
            return
        }
        // `sendBatchCheck` names the verifier it chooses.
        let pending = PendingBatchCheck(item: key, worker: peer, attempt: attempt, pieces: pieces, verifier: peer, sentAt: now)
        guard sendBatchCheck(pending, independentOf: [compressor], excluding: []) else {
            countCheckForIndependence(among: batchVerifierCandidates(key), compressor: peer, byReference: true)
            checkBatchLocally(key, worker: peer, attempt: attempt, pieces: pieces, verdict: .none)
            return
        }
    }

    /// The workers that could check batch `key`: they take batches, verify, and, when it holds
    /// whole files of several blocks, check those.
    func batchVerifierCandidates(_ key: ItemKey) -> [VerifierCandidate] {
        let blocks = jobs[key.job].flatMap { job in job.items[key.item]?.files.flatMap { Self.memberBlocks(of: $0, job: job) } }
        return verifierCandidates(job: key.job, capability: WorkerHello.batchesCapability).map { candidate in
            var candidate = candidate
            candidate.canVerify = candidate.canVerify && workers[candidate.id]?.hello.capabilities?.contains(WorkerHello.verifyCapability) == true
                && (blocks == nil || takesWholeFiles(candidate.id))
            return candidate
        }
    }

    /// Sends `pending`'s batch in one `verifyBatch` to a worker of none of the `independentOf`
    /// principals (and not in `excluding`), least loaded; false when there is none.
    mutating func sendBatchCheck(_ pending: PendingBatchCheck, independentOf principals: [Principal], excluding: Set<PeerID>) -> Bool {
        let key = pending.item
        guard let job = jobs[key.job], let files = job.items[key.item]?.files, let verifier = VerifierChoice.choose(
            among: batchVerifierCandidates(key), compressor: pending.worker, byReference: true, independentOf: principals, excluding: excluding)
        else { return false }
        let id = verification.nextCheckID
        verification.nextCheckID += 1
        var check = BatchCheck(
            checkID: id, jobID: key.job.value, itemID: key.item.value, attempt: pending.attempt.value, headerLevel: job.request.level,
            workspace: job.workspace.path.bytes, root: job.sourceRoot.bytes, files: files.map(\.batchFile), pieceLengths: pending.pieces.map(\.pieceLength))
        check.view = workers[verifier]?.view(for: key.job) ?? .same
        check.memberBlocks = Self.memberBlocks(of: files, job: job)
        if pending.auditOf == nil { check.listing = listingCheckToRide(with: key, worker: pending.worker, attempt: pending.attempt, to: verifier) }
        var sent = pending
        sent.verifier = verifier
        sent.sentAt = now
        sent.listingCheck = check.listing?.checkID
        verification.batches[id] = sent
        verification.checkedByWorkers += 1
        send(.verifyBatch(check), to: verifier)
        return true
    }

    /// A verifier's answer to a `verifyBatch`: good (and not drawn for an audit) grants the
    /// batch; an audit's good verdict grants it too. Bad is confirmed here before anyone is
    /// blamed; unreadable is checked here (as the audit it was, for an auditor).
    mutating func batchVerified(_ report: VerifyReport, pending: PendingBatchCheck, from peer: PeerID) {
        guard answeredByItsVerifier(pending.verifier, report, from: peer) else { return }
        verification.batches.removeValue(forKey: report.checkID)
        if let listing = pending.listingCheck { ridingListingAnswered(listing, report.listing, from: peer) }
        let key = pending.item
        guard jobs[key.job]?.state == .running else { return }
        let reading = VerdictReading.read(
            report.findings, claims: pending.pieces.map(\.crc), byReference: Array(repeating: true, count: pending.pieces.count))
        switch reading {
        case .good where pending.auditOf == nil && verification.audit.shouldAudit(roll: rolls.next()):
            audit(pending, vouchedBy: peer)
        case .good:
            recordVouching([pending.worker, peer] + (pending.auditOf.map { [$0] } ?? []), job: key.job)
            grantBatch(key, worker: pending.worker, attempt: pending.attempt, pieces: pending.pieces)
        case .bad:
            let verdict: VerifierVerdict = pending.auditOf.map { .auditContested(verifier: $0, auditor: peer) } ?? .contested(by: peer)
            checkBatchLocally(key, worker: pending.worker, attempt: pending.attempt, pieces: pending.pieces, verdict: verdict)
        case .unreadable:
            checkBatchLocally(key, worker: pending.worker, attempt: pending.attempt, pieces: pending.pieces, verdict: Self.verdictLeft(by: pending))
        }
        pump()
    }

    /// What the coordinator's own check of `pending` stands for when its worker gives no
    /// verdict: the audit it was, or a first check.
    static func verdictLeft(by pending: PendingBatchCheck) -> VerifierVerdict {
        pending.auditOf.map { .audited($0) } ?? .none
    }

    /// Batch checks whose verifier left, or did not answer in time: checked here, as a batch.
    mutating func takeBackBatchChecks(now: ContinuousClock.Instant, from gone: PeerID?) {
        let overdue = verification.batches.filter { _, check in check.verifier == gone || now - check.sentAt > configuration.verifyDeadline }
        for (id, check) in overdue.sorted(by: { $0.key < $1.key }) {
            verification.batches.removeValue(forKey: id)
            if gone == nil { markLate(check.verifier) }
            guard jobs[check.item.job]?.state == .running else { continue }
            checkBatchLocally(check.item, worker: check.worker, attempt: check.attempt, pieces: check.pieces, verdict: Self.verdictLeft(by: check))
        }
    }

    /// A good verdict drawn for an audit: a verifier of a third principal that takes batches
    /// checks the batch again, as a batch; with none, the coordinator checks it itself.
    mutating func audit(_ pending: PendingBatchCheck, vouchedBy verifier: PeerID) {
        let vouchers = [pending.worker, verifier].compactMap { workers[$0]?.principal }
        var audit = pending
        audit.auditOf = verifier
        audit.listingCheck = nil
        if vouchers.count == 2, sendBatchCheck(audit, independentOf: vouchers, excluding: [verifier]) {
            verification.auditsByWorkers += 1
            return
        }
        if vouchers.count == 2 {
            countCheckForIndependence(among: batchVerifierCandidates(pending.item), compressor: pending.worker, byReference: true, excluding: [verifier])
        }
        checkBatchLocally(pending.item, worker: pending.worker, attempt: pending.attempt, pieces: pending.pieces, verdict: .audited(verifier))
    }

    /// The coordinator checks a batch's answer itself, on its checking threads, as a batch.
    mutating func checkBatchLocally(_ key: ItemKey, worker peer: PeerID, attempt: AttemptID, pieces: [PieceReport], verdict: VerifierVerdict) {
        guard started, let job = jobs[key.job], let files = job.items[key.item]?.files else {
            expandAnswer(key, worker: peer, attempt: attempt, pieces: pieces, verdict: verdict, locally: true)
            return
        }
        verification.checkedLocally += 1
        if case .audited = verdict { verification.auditsLocally += 1 }
        outbox.append(.check(.batch(BatchLocalCheck(
            item: key, worker: peer, attempt: attempt, pieces: pieces, files: files, sourceRoot: job.sourceRoot,
            workspace: job.workspace.path, headerLevel: job.request.level, memberBlocks: Self.memberBlocks(of: files, job: job), verdict: verdict))))
    }

    /// The coordinator's check of a batch is done. Good: the batch is granted (a verifier that
    /// called it bad gets a strike). A defect: the batch is expanded and the answer refused
    /// as a bundle's would be (a strike for its worker, a caught collusion after an audit).
    mutating func batchChecked(_ check: BatchLocalCheck, defect: BlockDefect?) {
        let key = check.item
        guard jobs[key.job]?.state == .running, jobs[key.job]?.items[key.item]?.files != nil else { return }
        defer { pump() }
        guard let defect else {
            switch check.verdict {
            case .contested(let verifier), .auditContested(_, let verifier): strike(verifier, reason: "it called a good answer bad")
            default: break
            }
            grantBatch(key, worker: check.worker, attempt: check.attempt, pieces: check.pieces)
            return
        }
        if check.memberBlocks != nil {
            // Refused as a whole, not expanded: its whole files cannot be checked file by file.
            switch check.verdict {
            case .audited(let verifier), .auditContested(let verifier, _):
                collusionCaught(compressor: check.worker, verifier: verifier, item: key, reason: defect.reason)
            default:
                break
            }
            refuse(key, from: check.worker, reason: defect.reason)
            return
        }
        guard let (refs, positions) = expandBatch(key), let workspace = jobs[key.job]?.workspace.path,
              var request = pieceVerification(Self.pieceBlocks(check.pieces, positions: positions, item: key, attempt: check.attempt, in: workspace),
                                              item: key, from: check.worker, expected: refs) else { return }
        request.verdict = check.verdict
        checked(request, defect: defect)
    }

    /// An accepted batch answer's pieces at `positions`, as a bundle's pending blocks.
    static func pieceBlocks(_ pieces: [PieceReport], positions: [Int], item key: ItemKey, attempt: AttemptID, in workspace: BytePath) -> [PendingBlock?] {
        positions.map { position in
            let piece = pieces[position]
            return .piece(PieceBlock(
                path: JobWorkspace.piecePath(in: workspace, item: key.item.value, attempt: attempt.value, position: position),
                crc: piece.crc, rawLength: piece.rawLength, length: piece.pieceLength, item: key.item, attempt: attempt, position: position))
        }
    }

    /// Expands a batch whose answer is accepted and goes on with it as a bundle's: checked
    /// (`locally`, or by a verifier), with `verdict` so far, or handed on when unchecked.
    mutating func expandAnswer(_ key: ItemKey, worker peer: PeerID, attempt: AttemptID, pieces: [PieceReport], verdict: VerifierVerdict, locally: Bool) {
        guard let (refs, positions) = expandBatch(key), let workspace = jobs[key.job]?.workspace.path else { return }
        guard !refs.isEmpty else {
            // Its files were all whole files of several blocks, planned afresh.
            if var job = jobs.removeValue(forKey: key.job) {
                retire(key, in: &job)
                jobs[key.job] = job
            }
            return
        }
        let blocks = Self.pieceBlocks(pieces, positions: positions, item: key, attempt: attempt, in: workspace)
        guard checksResults(of: key.job) else {
            hand(key, expected: refs, blocks: blocks, from: peer)
            return
        }
        guard var request = pieceVerification(blocks, item: key, from: peer, expected: refs) else { return }
        request.verdict = verdict
        if locally { checkLocally(request) } else { submitCheck(request) }
    }

    /// Grants worker `peer` the publishing of a checked batch: one `publish` naming each file's
    /// output, recorded in the journal first when there is one. A worker that no longer
    /// publishes has the batch expanded and its members go to the writers.
    mutating func grantBatch(_ key: ItemKey, worker peer: PeerID, attempt: AttemptID, pieces: [PieceReport]) {
        guard publishes(peer, job: key.job), let files = jobs[key.job]?.items[key.item]?.files, let id = jobs[key.job]?.id else {
            expandAnswer(key, worker: peer, attempt: attempt, pieces: pieces, verdict: .none, locally: false)
            return
        }
        var grant = GrantInFlight(worker: peer, attempt: attempt, since: now, members: [])
        grant.batchPieces = pieces
        if checksResults(of: key.job) { traces[key.job]?.verified(key.item, at: micros) }
        jobs[key.job]?.dirty = true
        guard configuration.journal != nil else {
            grant.sent = true
            jobs[key.job]?.grants[key.item] = grant
            sendBatchGrant(key, to: peer, attempt: attempt)
            return
        }
        jobs[key.job]?.grants[key.item] = grant
        // Published by a worker, so no inode is known here: 0 says "identify it by size and CRC".
        // By position, fields read in place: a file bound whole was a copy (and a retain) per file.
        var records: [PublishedFile] = []
        records.reserveCapacity(min(files.count, pieces.count))
        for position in 0..<min(files.count, pieces.count) {
            let stamp = files[position].stamp
            records.append(PublishedFile(
                job: id.value, path: files[position].relativePath.bytes, sourceSize: stamp.size, sourceModifiedSeconds: stamp.modifiedSeconds,
                sourceModifiedNanoseconds: stamp.modifiedNanoseconds, sourceDevice: stamp.device, sourceInode: stamp.inode,
                outputSize: pieces[position].pieceLength, outputInode: 0, crc: pieces[position].crc))
        }
        recordGrant(key, records)
    }

    /// Sends batch `key`'s grant: every file's piece to its output.
    mutating func sendBatchGrant(_ key: ItemKey, to peer: PeerID, attempt: AttemptID) {
        guard let worker = workers[peer], let job = jobs[key.job], let files = job.items[key.item]?.files else { return }
        let force = job.request.force
        var members: [PublishMember] = []
        members.reserveCapacity(files.count)
        for position in files.indices {
            members.append(PublishMember(
                position: UInt32(position), output: job.outputPath(of: files[position].relativePath).bytes,
                replace: force || files[position].replacesOwnOutput))
        }
        send(.publish(PublishGrant(
            jobID: key.job.value, itemID: key.item.value, attempt: attempt.value, workspace: job.workspace.path.bytes,
            syncPieces: worker.sharesKernel, members: members)), to: peer)
    }

    /// A batch's grant is done: its files are published but those the worker names, which
    /// fail; the job counts them all at once and the item is written.
    mutating func batchPublished(_ report: PublishReport, pieces: [PieceReport], key: ItemKey) {
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        let files = job.items[key.item]?.files ?? []
        var reasons: [Int: String] = [:]
        for failure in report.failures where reasons[Int(failure.position)] == nil { reasons[Int(failure.position)] = failure.reason }
        var done: [FileDone] = []
        var failed: [EntryNote] = []
        var published = 0
        var bytesIn: UInt64 = 0
        var bytesOut: UInt64 = 0
        for (position, (file, piece)) in zip(files, pieces).enumerated() {
            job.filesFinished += 1
            job.bytesDone += file.stamp.size
            if let reason = reasons[position] {
                let note = EntryNote(path: file.relativePath.display, reason: reason)
                job.failed.append(note)
                metrics.filesFailed.increment()
                failed.append(note)
                continue
            }
            published += 1
            bytesIn += file.stamp.size
            bytesOut += piece.pieceLength
            if job.request.fileEvents == true {
                done.append(FileDone(path: file.relativePath.display, bytesIn: file.stamp.size, bytesOut: piece.pieceLength))
            }
        }
        job.filesCompressed += published
        job.bytesIn += bytesIn
        job.bytesOut += bytesOut
        job.batchFiles -= files.count
        job.dirty = true
        metrics.filesDone.increment(by: published)
        metrics.inputBytes.increment(by: bytesIn)
        metrics.outputBytes.increment(by: bytesOut)
        metrics.outputsPublishedByWorkers.increment(by: published)
        metrics.batchesPublished.increment()
        batchesPublished += 1
        retire(key, in: &job)
        jobs[key.job] = job
        emit(to: key.job, skipped: [], failed: failed)
        emit(to: key.job, done: done)
        checkFinished(key.job)
        continueScan(key.job)
        pump()
    }

    /// The members of grant `key` as a writer publishes them: a batch's grant expands its batch
    /// (its files become open files whose blocks wait for the writer).
    mutating func members(of grant: GrantInFlight, key: ItemKey) -> [(spec: OutputSpec, piece: PieceBlock)] {
        guard let pieces = grant.batchPieces else { return grant.members }
        guard let (refs, positions) = expandBatch(key, granted: true), let job = jobs[key.job] else { return [] }
        guard !refs.isEmpty else {
            // Its files were all whole files of several blocks, planned afresh.
            if var job = jobs.removeValue(forKey: key.job) {
                retire(key, in: &job)
                jobs[key.job] = job
            }
            return []
        }
        jobs[key.job]?.unwritten[key.item] = Set(refs)
        let blocks = Self.pieceBlocks(pieces, positions: positions, item: key, attempt: grant.attempt, in: job.workspace.path)
        var members: [(spec: OutputSpec, piece: PieceBlock)] = []
        for (ref, block) in zip(refs, blocks) {
            guard let file = job.open[ref.file]?.plan, case .piece(let piece)? = block else { continue }
            members.append((spec(of: file, in: job), piece))
        }
        return members
    }
}

extension PlannedFile {
    /// The file as a batch names it: below the job's source root, with the scan's stamp.
    var batchFile: BatchFile {
        BatchFile(
            relativePath: relativePath.bytes, size: stamp.size, modifiedSeconds: stamp.modifiedSeconds,
            modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode, permissions: stamp.permissions)
    }
}
