import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Result intake: which answers count, checked against what was sent.
extension CoordinatorCore {
    /// Takes a result if it is the first one for its item, from the worker the item was sent
    /// to, and matches what was sent; hands its blocks to the writers. Returns whether it did.
    mutating func accept(_ result: WorkResult, from peer: PeerID) -> Bool {
        let key = ItemKey(job: JobID(result.jobID), item: ItemID(result.itemID))
        guard let expected = admit(key, from: peer, rawLengths: result.blocks.map(\.rawLength)) else { return false }
        if checksResults(of: key.job) {
            check(result, item: key, from: peer, expected: expected)
        } else {
            hand(key, expected: expected, blocks: result.blocks.map(PendingBlock.bytes))
        }
        return true
    }

    /// Takes a shared-storage worker's answer the same way; only the attempt this worker was
    /// given counts, so pieces of any other attempt (a worker declared dead, a slower copy)
    /// are never stitched. Blocks it could not read fail their files.
    mutating func accept(_ result: RefResult, from peer: PeerID) -> Bool {
        if let taken = acceptBatch(result, from: peer) { return taken }
        let key = ItemKey(job: JobID(result.jobID), item: ItemID(result.itemID))
        if let given = jobs[key.job]?.attempts[key.item]?[peer], given.value != result.attempt {
            countMalformed(ProtocolError.malformed("resultRef for attempt \(result.attempt), the worker was given \(given)"), from: peer)
            itemWentWrong(key, on: peer, reason: "its worker answered for another attempt")
            return false
        }
        // A block written in place must end where the next one starts.
        if jobs[key.job]?.placedAttempts.contains(AttemptID(result.attempt)) == true, let mismatch = placedLengthMismatch(result, item: key) {
            countMalformed(ProtocolError.malformed(mismatch), from: peer)
            itemWentWrong(key, on: peer, reason: mismatch)
            return false
        }
        // Only the path is kept: a copy of the job held across `hand` would make its in-place
        // updates copy the per-file tables.
        guard let expected = admit(key, from: peer, rawLengths: result.pieces.map { $0.failure == nil ? $0.rawLength : nil }),
              let workspace = jobs[key.job]?.workspace.path else { return false }
        jobs[key.job]?.attempts.removeValue(forKey: key.item)
        let placed = jobs[key.job]?.placedAttempts.remove(AttemptID(result.attempt)) != nil
        var blocks: [PendingBlock?] = []
        var failures: [(Int, String)] = []
        for (position, (ref, piece)) in zip(expected, result.pieces).enumerated() {
            if let failure = piece.failure {
                failures.append((ref.file, failure))
                blocks.append(nil)
                continue
            }
            var block = PieceBlock(
                path: JobWorkspace.piecePath(in: workspace, item: key.item.value, attempt: result.attempt, position: position),
                crc: piece.crc, rawLength: piece.rawLength, length: piece.pieceLength,
                item: key.item, attempt: AttemptID(result.attempt), position: position)
            block.writtenCRC = piece.storedCRC
            if placed, let open = jobs[key.job]?.open[ref.file], let placement = open.placement {
                block.path = JobWorkspace.stitchPath(in: workspace, file: ref.file, attempt: placement.output.value)
                block.offset = placement.offset(of: ref.index, in: open.plan.layout)
                block.placed = true
            }
            blocks.append(.piece(block))
        }
        // A worker's word that it cannot read a source is not taken alone either: the item goes
        // once more, to another worker where there is one, and only a second report fails files.
        // No strike: a file that really changed fails the same way for any worker. With no
        // other worker its word stands: only the unreadable files fail.
        if !failures.isEmpty, checksResults(of: key.job), scheduler.canRetryElsewhere(key, than: peer),
           verification.retriedReads.insert(key).inserted {
            logger.info("worker could not read an item's source; trying another worker", metadata: [
                "job": "\(key.job)", "item": "\(key.item)", "reason": "\(String(failures[0].1.prefix(200)).debugDescription)",
            ])
            reopen(key, refusing: peer, reason: "could not read the source: \(String(failures[0].1.prefix(200)))")
            return true
        }
        if checksResults(of: key.job) {
            check(pieces: blocks, item: key, from: peer, expected: expected)
        } else {
            hand(key, expected: expected, blocks: blocks, from: peer)
        }
        for (file, reason) in failures { fileFailed(FileKey(job: key.job, file: file), reason: reason) }
        return true
    }

    /// Why an answer's blocks written in place cannot be right (a length other than planned), or nil.
    func placedLengthMismatch(_ result: RefResult, item key: ItemKey) -> String? {
        guard let job = jobs[key.job], let sent = job.sentBlocks[key.item] ?? job.items[key.item]?.blocks else { return nil }
        for (ref, piece) in zip(sent, result.pieces) where piece.failure == nil {
            guard let layout = job.open[ref.file]?.plan.layout, layout.count > ref.index else { continue }
            let range = layout.range(of: ref.index)
            let planned = StoredBlocks.encodedLength(rawLength: Int(range.upperBound - range.lowerBound), isLast: layout.isLast(ref.index))
            if piece.pieceLength != UInt64(planned) { return "block written in place is \(piece.pieceLength) bytes, \(planned) planned" }
        }
        return nil
    }

    /// `accept`s a shared-storage worker's answer and, when taken, counts its bytes to the
    /// worker for `status`.
    mutating func acceptCounting(_ result: RefResult, from peer: PeerID) {
        if accept(result, from: peer) { workers.credit(peer, bytes: result.pieces.reduce(0) { $0 + $1.rawLength }, at: now) }
    }

    /// The checks every answer passes: the first for its item, from its assignee, for a
    /// running job, with one block per block sent and each block's length as planned (nil:
    /// a block the worker could not read). Returns the blocks sent, or nil when dropped.
    mutating func admit(_ key: ItemKey, from peer: PeerID, rawLengths: [Int?]) -> [BlockRef]? {
        switch scheduler.verdict(key, from: peer) {
        case .accepted:
            break
        case .late, .notAssigned:
            let verdict = scheduler.complete(key, from: peer, now: now)  // frees a slower copy's credit
            countLate(verdict, of: "result", key: key, from: peer)  // the first result won, the job ended, or the item was taken back
            traces[key.job]?.answered(key.item, by: peer, at: micros, won: false)
            return nil
        case .unknownItem:
            countMalformed(ProtocolError.malformed("result for unknown item \(key.item)"), from: peer)
            return nil
        }
        guard let job = jobs[key.job], job.state == .running else {
            lateResults += 1
            return nil
        }
        guard let expected = job.sentBlocks[key.item] ?? job.items[key.item]?.blocks else {
            lateResults += 1
            return nil
        }
        guard rawLengths.count == expected.count else {
            countMalformed(ProtocolError.malformed("result has \(rawLengths.count) blocks, item has \(expected.count)"), from: peer)
            refuseShape(key, from: peer, reason: "the result had \(rawLengths.count) blocks for \(expected.count)")
            return nil
        }
        for (ref, rawLength) in zip(expected, rawLengths) {
            // A file that failed meanwhile is not written; its blocks need no check.
            guard let rawLength, let layout = job.open[ref.file]?.plan.layout else { continue }
            let range = layout.range(of: ref.index)
            if UInt64(rawLength) != range.upperBound - range.lowerBound {
                countMalformed(ProtocolError.malformed("block length \(rawLength) does not match the plan"), from: peer)
                refuseShape(key, from: peer, reason: "a block's length did not match the plan")
                return nil
            }
        }
        if let since = scheduler.heldSince(key, by: peer) { CoordinatorMetrics.record(now - since, in: metrics.itemDuration) }
        _ = scheduler.complete(key, from: peer, now: now)
        traces[key.job]?.answered(key.item, by: peer, at: micros, won: true)
        return expected
    }

    /// An answer whose shape (its blocks, their lengths) is not the item's: no honest worker
    /// sends one, so it is a strike as a wrong CRC is, and the item goes to another worker.
    mutating func refuseShape(_ key: ItemKey, from peer: PeerID, reason: String) {
        strike(peer, reason: reason, item: key, what: "result refused: its blocks are not the item's; the item goes to another worker")
        itemWentWrong(key, on: peer, reason: reason)
    }
}
