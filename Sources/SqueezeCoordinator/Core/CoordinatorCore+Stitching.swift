import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Stitching: a shared-storage worker joins a multi-block file's pieces in segments while the file is compressed.
extension CoordinatorCore {
    /// Sends the next segments of a file's stitch: the pieces that came in since the last
    /// segment, once they make a run of the configured segment size from it, or all that are left with
    /// the trailer once every piece is in. So the copy keeps pace with compression and only a
    /// last segment is left when the last block is done. The stitch starts on the least busy
    /// shared-storage worker (other than `excluded`); with none, a writer joins the file once
    /// its pieces are all in.
    mutating func advanceStitch(_ key: FileKey, excluding excluded: PeerID? = nil) {
        // Moved out and back in: the pieces table is read in place, not copied.
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        defer { jobs[key.job] = job }
        guard job.state == .running, let open = job.open[key.file], !open.joinedByWriter,
              let pieces = job.stitchPieces[key.file] else { return }
        let file = open.plan
        if let placement = open.placement {
            // Written in place: once every block is in, the output only lacks its header and trailer.
            guard placement.blocksIn == file.layout.count else { return }
            var checksum = MemberChecksum()
            for case let piece? in pieces { checksum.append(crc: piece.crc, length: piece.rawLength) }
            let end = placement.end(of: file.layout)
            job.stitchPieces.removeValue(forKey: key.file)
            // The header goes in last, so with its offset table's final lengths.
            var spec = spec(of: file, in: job)
            spec.header = finalHeader(of: file, in: job, blockLengths: pieces.map { $0?.length ?? 0 })
            write(for: key, .placed(
                spec, output: JobWorkspace.stitchPath(in: job.workspace.path, file: key.file, attempt: placement.output.value),
                end: end, trailer: checksum.trailer.encoded()))
            return
        }
        var stitch = job.stitching[key.file]
        while stitch?.lastSent != true {
            let first = stitch?.sentPieces ?? 0
            var next = first
            var bytes: UInt64 = 0
            while next < pieces.count, next - first < Self.stitchSegmentPieces, let piece = pieces[next] {
                bytes += piece.length
                next += 1
            }
            let isLast = next == pieces.count
            guard isLast || bytes >= UInt64(configuration.stitchSegmentBytes) || next - first == Self.stitchSegmentPieces else { return }
            let header = header(of: file, in: job).encoded()
            // A member with an offset table: the last segment writes the header again with the
            // table's lengths, and only a worker that announced it can be asked to.
            let hasTable = Self.spanBlocks(of: file, setting: job.setting) != nil
            if stitch == nil {
                let candidates = workers.all.filter { worker in
                    worker.isShared(for: key.job) && worker.routingID != excluded
                        && (!hasTable || worker.hello.capabilities?.contains(WorkerHello.offsetTableCapability) == true)
                        && !verification.quarantine.isQuarantined(verification.identity(of: worker.routingID))
                }
                let worker = candidates.min { first, second in
                    let (a, b) = (scheduler.busy(first.routingID), scheduler.busy(second.routingID))
                    return a != b ? a < b : first.routingID < second.routingID
                }
                guard let worker else {
                    if isLast { joinInWriter(key.file, of: &job) }
                    return
                }
                stitch = StitchInProgress(worker: worker.routingID, attempt: nextAttempt.take(), headerLength: header.count, now: now)
            }
            guard var current = stitch, let worker = workers[current.worker] else { return }
            var trailer: [UInt8] = []
            var finalHeader: [UInt8] = []
            if isLast {
                var checksum = MemberChecksum()
                for case let piece? in pieces { checksum.append(crc: piece.crc, length: piece.rawLength) }
                trailer = checksum.trailer.encoded()
                if hasTable { finalHeader = self.finalHeader(of: file, in: job, blockLengths: pieces.map { $0?.length ?? 0 }).encoded() }
            }
            // The bytes a segment's check covers: with a table, the first segment's header is
            // written again by the last, so its check starts after the header and the last
            // segment's header gets a check of its own (`stitched`).
            let checkedHeader = first == 0 && !hasTable ? header : []
            var expectedCRC: UInt32?
            if checksResults(of: key.job) {
                // Every piece's bytes were read by its check; a verifier that does not report
                // what it read leaves nothing to check the segment against: a writer joins it.
                let stored = pieces[first..<next].compactMap { $0.flatMap { piece in piece.storedCRC.map { (crc: $0, length: piece.length) } } }
                guard stored.count == next - first else {
                    joinInWriter(key.file, of: &job)
                    return
                }
                expectedCRC = StitchSegment.expectedCRC(header: checkedHeader, pieces: stored, trailer: trailer)
            }
            send(.stitch(StitchRequest(
                jobID: key.job.value, file: UInt32(key.file), attempt: current.attempt.value, workspace: job.workspace.path.bytes,
                offset: current.end, syncResult: !worker.sharesKernel, permissions: file.stamp.permissions,
                modifiedSeconds: file.stamp.modifiedSeconds, modifiedNanoseconds: file.stamp.modifiedNanoseconds,
                header: first == 0 ? header : [], trailer: trailer,
                pieces: pieces[first..<next].compactMap { piece in
                    piece.map { StitchPiece(item: $0.item.value, attempt: $0.attempt.value, position: UInt32($0.position), length: $0.length) }
                }, finalHeader: finalHeader)), to: current.worker)
            if current.awaited.isEmpty { current.since = now }
            current.sentPieces = next
            let start = current.end - UInt64(checkedHeader.count)
            current.end += bytes + UInt64(trailer.count)
            current.awaited.append(StitchSegment(
                range: start..<current.end, expectedCRC: expectedCRC, pieces: first..<next, header: checkedHeader, trailer: trailer,
                finalHeader: finalHeader))
            current.lastSent = isLast
            stitch = current
            job.stitching[key.file] = current
        }
    }

    /// Most pieces in one segment.
    static let stitchSegmentPieces = 4096
    /// The coordinator's own way: a writer appends the pieces to the output (copy_file_range).
    mutating func stitchInWriter(_ key: FileKey) {
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        joinInWriter(key.file, of: &job)
        jobs[key.job] = job
    }

    /// A worker's answer to a stitch segment. Each must end the output where the coordinator
    /// computed, and is checked (when the job's answers are); once the last is in and every
    /// check passed, the output is adopted like a one-block file and the worker removes the
    /// pieces. A failed segment falls back to a writer; answers of any other attempt are late.
    mutating func stitched(_ result: StitchResult, from peer: PeerID) {
        let key = FileKey(job: JobID(result.jobID), file: Int(result.file))
        guard jobs[key.job]?.state == .running, var current = jobs[key.job]?.stitching[key.file],
              current.worker == peer, current.attempt.value == result.attempt else {
            lateResults += 1
            return
        }
        if let failure = result.failure {
            let path = jobs[key.job]?.open[key.file]?.plan.relativePath.display ?? ""
            logger.warning("a worker could not join a file's pieces; the coordinator joins them", metadata: [
                "job": "\(key.job)", "file": "\(path.debugDescription)",
                "reason": "\(String(failure.prefix(200)).debugDescription)",
            ])
            stitchInWriter(key)
            return
        }
        guard let segment = current.awaited.popFirst(), result.length == segment.range.upperBound else {
            countMalformed(ProtocolError.malformed("stitched up to \(result.length), the segment ends at \(current.awaited.first?.range.upperBound ?? 0)"), from: peer)
            stitchInWriter(key)
            return
        }
        current.confirmed = segment.range.upperBound
        current.since = now
        var checks: [SegmentCheck] = []
        if let expectedCRC = segment.expectedCRC, let job = jobs[key.job], let pieces = job.stitchPieces[key.file],
           segment.pieces.upperBound <= pieces.count {
            let path = JobWorkspace.stitchPath(in: job.workspace.path, file: key.file, attempt: result.attempt)
            checks.append(SegmentCheck(
                id: verification.nextCheckID, file: key, attempt: AttemptID(result.attempt), stitcher: peer,
                path: path, range: segment.range,
                expectedCRC: expectedCRC, header: segment.header, pieces: pieces[segment.pieces].compactMap { $0 }, trailer: segment.trailer))
            verification.nextCheckID += 1
            if !segment.finalHeader.isEmpty {
                // The offset table the stitcher wrote over the first header: checked like the
                // rest of the bytes, against the header the coordinator derived.
                checks.append(SegmentCheck(
                    id: verification.nextCheckID, file: key, attempt: AttemptID(result.attempt), stitcher: peer,
                    path: path, range: 0..<UInt64(segment.finalHeader.count), expectedCRC: CRC32.checksum(segment.finalHeader),
                    header: segment.finalHeader, pieces: [], trailer: []))
                verification.nextCheckID += 1
            }
            for check in checks { current.checking.insert(check.id) }
        }
        jobs[key.job]?.stitching[key.file] = current
        if !checks.isEmpty {
            for check in checks { checkSegment(check) }
        } else if current.isComplete {
            adoptStitch(key)
        }
    }

    /// A stitch is whole and checked: its output is adopted like a one-block file, and the
    /// worker that stitched it removes the pieces.
    mutating func adoptStitch(_ key: FileKey) {
        // Moved out and back in: updating a copy would copy the job's stitch tables.
        guard var running = jobs.removeValue(forKey: key.job) else { return }
        defer { jobs[key.job] = running }
        guard let stitch = running.stitching.removeValue(forKey: key.file) else { return }
        let pieces = running.stitchPieces.removeValue(forKey: key.file) ?? []
        let member = PieceBlock(
            path: JobWorkspace.stitchPath(in: running.workspace.path, file: key.file, attempt: stitch.attempt.value),
            crc: 0, rawLength: 0, length: stitch.confirmed, item: 0, attempt: stitch.attempt, position: 0)
        if let file = running.open[key.file]?.plan {
            write(for: key, .members([(spec(of: file, in: running), member)]))
        }
        // The worker that stitched frees the pieces' space: that costs the kernel time per
        // byte, which the coordinator must not spend.
        send(.discard(PieceDiscard(jobID: key.job.value, workspace: running.workspace.path.bytes, pieces: pieces.compactMap { piece in
            piece.map { StitchPiece(item: $0.item.value, attempt: $0.attempt.value, position: UInt32($0.position), length: 0) }
        })), to: stitch.worker)
        running.freeing[stitch.worker, default: 0] += 1
    }

    /// Stitches held by a worker that is gone, or whose segments are past their time, start
    /// again from the first piece elsewhere, as a new attempt.
    mutating func restartStitches(now: ContinuousClock.Instant, leaving peer: PeerID? = nil) {
        for id in jobOrder {
            guard let job = jobs[id] else { continue }
            for (file, stitch) in job.stitching {
                // A worker joins at 50 MB/s at the least; beyond that, plus the item deadline, it is stuck.
                let allowance = configuration.itemDeadline + .seconds(Double(stitch.outstandingBytes) / 50e6)
                let stalled = !stitch.awaited.isEmpty && now - stitch.since > allowance
                guard stitch.worker == peer || stalled else { continue }
                jobs[id]?.stitching.removeValue(forKey: file)
                advanceStitch(FileKey(job: id, file: file), excluding: stitch.worker)
            }
        }
    }
}
