import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Output routing: accepted blocks to the writer partition that owns their output, and what the writers report.
extension CoordinatorCore {
    /// Hands an accepted item's blocks (nil: not written, its file fails) to the writers; the
    /// window moves past the item once they are all in their outputs.
    /// Whole members from `peer` (its accepted attempt) are published by it when it can.
    mutating func hand(_ key: ItemKey, expected: [BlockRef], blocks: [PendingBlock?], from peer: PeerID? = nil) {
        // Moved out and back in: mutating a copy would copy the job's per-file arrays each time.
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        job.sentBlocks.removeValue(forKey: key.item)
        job.dirty = true
        for case .bytes(let block)? in blocks {
            job.bytesRelayed += UInt64(block.rawLength)
            metrics.relayedBytes.increment(by: block.rawLength)
        }
        if checksResults(of: key.job) { traces[key.job]?.verified(key.item, at: micros) }
        // Pieces of multi-block files wait on disk for their stitch, not in a writer's memory:
        // they do not hold the window. A file with any block from a remote worker is joined
        // by a writer instead (its pieces so far go there too).
        var handed = Set<BlockRef>()
        var touched = Set<Int>()
        // Received blocks go to their writers grouped by file, one command per writer: one trip
        // to the I/O pool and one report for all of an item's files there, not one per block.
        var received: [(spec: OutputSpec, blocks: [(index: Int, block: ResultBlock)])] = []
        // Whole members (a bundle's one-block files) go as one command per writer, or to the
        // worker that wrote them as one grant.
        var members: [Int: [(spec: OutputSpec, piece: PieceBlock)]] = [:]
        let publisher = publishes(peer, job: key.job) ? peer : nil
        var granted: [(spec: OutputSpec, piece: PieceBlock)] = []
        for (ref, block) in zip(expected, blocks) {
            guard let block, var open = job.open[ref.file] else { continue }
            if case .piece(let piece) = block, open.placement != nil, !piece.placed, !open.joinedByWriter {
                // Not where the placed output expects it: a writer joins the file instead.
                joinInWriter(ref.file, of: &job)
                open.joinedByWriter = true
            }
            let file = open.plan
            switch block {
            case .bytes(let bytes):
                if received.last?.spec.key.file == ref.file {
                    received[received.count - 1].blocks.append((ref.index, bytes))
                } else {
                    if file.layout.count > 1 { joinInWriter(ref.file, of: &job) }
                    received.append((spec(of: file, in: job), [(ref.index, bytes)]))
                }
                handed.insert(ref)
            case .piece(let piece) where file.layout.count == 1:
                let spec = spec(of: file, in: job)
                if publisher != nil {
                    granted.append((spec, piece))
                } else if let partition = writerPartition(of: spec.key) {
                    members[partition, default: []].append((spec, piece))
                }
                handed.insert(ref)
            case .piece(let piece) where open.joinedByWriter:
                let spec = spec(of: file, in: job)
                write(for: spec.key, .piece(spec, index: ref.index, piece))
                handed.insert(ref)
            case .piece(let piece):
                // In place: copying the list for each block would make a big file quadratic.
                job.stitchPieces[ref.file, default: Array(repeating: nil, count: file.layout.count)][ref.index] = piece
                if piece.placed { job.open[ref.file]?.placement?.blocksIn += 1 }
                job.bytesDone += UInt64(piece.rawLength)
                job.open[ref.file]?.written += UInt64(piece.rawLength)
                job.inProgress.insert(ref.file)
                touched.insert(ref.file)
            }
        }
        var receivedBy: [Int: [(spec: OutputSpec, blocks: [(index: Int, block: ResultBlock)])]] = [:]
        for file in received {
            if let partition = writerPartition(of: file.spec.key) { receivedBy[partition, default: []].append(file) }
        }
        for (partition, files) in receivedBy.sorted(by: { $0.key < $1.key }) { write(partition: partition, .blocks(files)) }
        for (partition, list) in members.sorted(by: { $0.key < $1.key }) { write(partition: partition, .members(list)) }
        if let publisher, !granted.isEmpty { grant(key, members: granted, to: publisher, in: &job) }
        if handed.isEmpty {
            retire(key, in: &job)
        } else {
            job.unwritten[key.item] = handed
        }
        jobs[key.job] = job
        for file in touched.sorted() { advanceStitch(FileKey(job: key.job, file: file)) }
    }

    /// From now on a writer joins file `index`: the pieces already in go to it.
    mutating func joinInWriter(_ index: Int, of job: inout JobRecord) {
        guard let open = job.open[index], !open.joinedByWriter else { return }
        job.open[index]?.joinedByWriter = true
        job.filesJoinedByWriter += 1
        job.stitching.removeValue(forKey: index)
        guard let pieces = job.stitchPieces.removeValue(forKey: index) else { return }
        // Their progress was counted when they came in; the writer's reports count it again.
        job.bytesDone -= UInt64(pieces.reduce(0) { $0 + ($1?.rawLength ?? 0) })
        job.open[index]?.written = 0
        let spec = spec(of: open.plan, in: job)
        for (block, piece) in pieces.enumerated() {
            guard let piece else { continue }
            write(for: spec.key, .piece(spec, index: block, piece))
        }
    }

    /// What a writer needs for a file's output.
    func spec(of file: PlannedFile, in job: JobRecord) -> OutputSpec {
        OutputSpec(
            key: FileKey(job: job.id, file: file.index), outputPath: job.outputPath(of: file), relativePath: file.relativePath.bytes,
            header: header(of: file, in: job), spanBlocks: Self.spanBlocks(of: file, setting: job.setting), blockCount: file.layout.count,
            stamp: file.stamp, replace: job.request.force || file.replacesOwnOutput, workspace: job.workspace.path)
    }

    /// The gzip header of a file's member as it is written first: its name and mtime, like gzip
    /// writes, and for a member of several blocks the offset table's shape with zero lengths
    /// (docs/format.md), the same length as the final header (`finalHeader`).
    func header(of file: PlannedFile, in job: JobRecord) -> GzipHeader {
        // An archive's member names no file and has no time, as `tar | gzip` writes it: the
        // same tree makes the same bytes.
        var header = job.archive != nil
            ? GzipHeader(fileName: nil, modificationTime: 0, level: job.request.level)
            : GzipHeader(fileName: file.relativePath.lastComponent, modificationTime: UInt32(clamping: file.stamp.modifiedSeconds), level: job.request.level)
        if let perSpan = Self.spanBlocks(of: file, setting: job.setting) {
            header.offsetTable = .placeholder(for: file.layout, blocksPerSpan: perSpan)
        }
        return header
    }

    /// The header a finished member ends with: `header(of:in:)` with the offset table's
    /// lengths, from the compressed length of each block (`blockLengths`, every block of the
    /// file, in order). The coordinator derives it from the lengths it accepted; no worker's
    /// word on the table is taken.
    func finalHeader(of file: PlannedFile, in job: JobRecord, blockLengths: [UInt64]) -> GzipHeader {
        var header = header(of: file, in: job)
        if let perSpan = Self.spanBlocks(of: file, setting: job.setting) {
            header.offsetTable = .of(blockLengths: blockLengths.map { Int(clamping: $0) }, blockSize: file.layout.blockSize, blocksPerSpan: perSpan)
        }
        return header
    }

    /// Blocks per span of the offset table in a file's member, or nil when it gets none (one
    /// block; spans past 1 GiB): the drop-in's rule (`GzipOffsetTable.blocksPerSpan`).
    static func spanBlocks(of file: PlannedFile, setting: EngineSetting) -> Int? {
        GzipOffsetTable.blocksPerSpan(for: file.layout, engine: setting.engine)
    }

    /// Asks every writer sent something since its last flush to publish what it has sealed.
    /// Only those can hold a sealed output: a job whose files workers stitch leaves the
    /// writers idle, and waking each every tick costs.
    mutating func flushWriters() {
        let partitions = writersToFlush.sorted()
        writersToFlush.removeAll(keepingCapacity: true)
        for partition in partitions where partition < writers { outbox.append(.write(.flush, partition: partition)) }
    }

    /// Blocks that reached their output, or were dropped with their file: items whose every
    /// handed block is accounted for leave the dispatch window. Returns whether any did.
    mutating func blocksWritten(_ refs: [BlockRef], in job: inout JobRecord) -> Bool {
        var moved = false
        for ref in refs {
            // Taken out and put back: removing from a set the dictionary still holds would copy
            // it, once per block, which made a bundle's publishing quadratic in its files.
            guard let item = job.item(holding: ref), var left = job.unwritten.removeValue(forKey: item) else { continue }
            guard left.remove(ref) != nil else {
                job.unwritten[item] = left
                continue
            }
            if left.isEmpty {
                retire(ItemKey(job: job.id, item: item), in: &job)
                moved = true
            } else {
                job.unwritten[item] = left
            }
        }
        return moved
    }

    /// What a writer did with one command: each file's progress and failures, then what
    /// follows once per job rather than once per file (finishing, scanning on, flushing,
    /// dispatching into the window the written blocks freed).
    mutating func writerReported(_ outcomes: [Result<OutputWriter.Progress, WriteFailure>]) {
        var moved = false
        var finishedIn: [JobID] = []
        var index = 0
        while index < outcomes.count {
            switch outcomes[index] {
            case .success(let first):
                // A run of one job's steps (a bundle's files) takes the job out of the table
                // once: moving the record in and out for each file cost more than the step.
                let id = first.key.job
                var end = index
                while end < outcomes.count, case .success(let progress) = outcomes[end], progress.key.job == id { end += 1 }
                if var job = jobs.removeValue(forKey: id) {
                    var finished = false
                    var done: [FileDone] = []
                    for case .success(let progress) in outcomes[index..<end] {
                        let step = written(progress, in: &job, done: &done)
                        moved = moved || step.moved
                        finished = finished || step.finished
                    }
                    jobs[id] = job
                    emit(to: id, done: done)
                    if finished, !finishedIn.contains(id) { finishedIn.append(id) }
                }
                index = end
            case .failure(let failure) where failure.journal:
                fileFailed(failure.key, reason: failure.reason)
                cancel(job: failure.key.job, reason: failure.reason, as: .failed)
                index += 1
            case .failure(let failure):
                fileFailed(failure.key, reason: failure.reason)
                index += 1
            }
        }
        for id in finishedIn {
            checkFinished(id)
            continueScan(id)
        }
        var jobsReported: [JobID] = []
        for case .success(let progress) in outcomes where !jobsReported.contains(progress.key.job) {
            jobsReported.append(progress.key.job)
            flushIfOnlyFlushLeft(progress.key.job)
        }
        if moved { pump() }
    }

    /// Counts one writer step of an open file. Returns whether blocks it wrote moved a dispatch
    /// window, and whether it finished the file.
    /// A file it finishes joins `done` when the job's clients asked for file events.
    mutating func written(_ progress: OutputWriter.Progress, in job: inout JobRecord, done: inout [FileDone]) -> (moved: Bool, finished: Bool) {
        guard job.open[progress.key.file] != nil else { return (false, false) }
        let refs = progress.blocks.map { BlockRef(file: progress.key.file, index: $0) }
        let moved = blocksWritten(refs, in: &job)
        job.bytesDone += progress.rawBytes
        job.bytesOut += progress.outputBytes
        metrics.outputBytes.increment(by: progress.outputBytes)
        job.open[progress.key.file]?.written += progress.rawBytes
        if !progress.finished { job.inProgress.insert(progress.key.file) }
        job.dirty = true
        if progress.sealed { job.sealed(progress.key.file) }
        if progress.finished, let file = job.close(progress.key.file)?.plan {
            job.filesFinished += 1
            job.filesCompressed += 1
            job.bytesIn += file.stamp.size
            metrics.inputBytes.increment(by: file.stamp.size)
            metrics.filesDone.increment()
            if job.request.fileEvents == true {
                done.append(FileDone(path: file.relativePath.display, bytesIn: file.stamp.size, bytesOut: progress.outputTotal))
            }
        }
        return (moved, progress.finished)
    }

    /// Publishes what the writers have sealed now, rather than up to a tick later (a tenth of
    /// a second, most of a small job's time), once every file job `id` has left is sealed.
    mutating func flushIfOnlyFlushLeft(_ id: JobID) {
        if jobs[id]?.onlyFlushLeft == true { flushWriters() }
    }

    /// File `key` failed for `reason`: its blocks stop holding the window, its clients are told,
    /// its writer drops its temporary, and its job may be done.
    mutating func fileFailed(_ key: FileKey, reason: String) {
        guard jobs[key.job]?.open[key.file] != nil, var job = jobs.removeValue(forKey: key.job) else { return }
        // Its blocks still waiting for a writer will never be written: they no longer hold the
        // window. Found before the file closes: closed files belong to no item.
        let dropped = job.unwritten.values.flatMap { $0.filter { $0.file == key.file } }
        let moved = blocksWritten(dropped, in: &job)
        defer { if moved { pump() } }
        guard let open = job.close(key.file) else {
            jobs[key.job] = job
            return
        }
        let file = open.plan
        job.filesFinished += 1
        job.bytesDone += file.stamp.size - min(file.stamp.size, open.written)
        let note = EntryNote(path: file.relativePath.display, reason: reason)
        job.failed.append(note)
        metrics.filesFailed.increment()
        emit(to: job.id, .fileFailed(note))
        // A stitch of it may be under way; its answer will find nothing to adopt.
        job.stitchPieces.removeValue(forKey: key.file)
        job.stitching.removeValue(forKey: key.file)
        jobs[key.job] = job
        write(for: key, .discardFile(key))
        checkFinished(key.job)
        continueScan(key.job)
        flushIfOnlyFlushLeft(key.job)
    }
}
