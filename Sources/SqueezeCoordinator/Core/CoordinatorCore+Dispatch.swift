import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Dispatch: the scheduler's assignments become references for shared-storage workers and reads for remote ones.
extension CoordinatorCore {
    /// Hands out items while the scheduler has assignments: some job has sendable work and a
    /// worker with credit has its engine.
    mutating func pump() {
        guard started, !stopping, pressure.allowsDispatch else { return }
        repeat {
            while let assignment = scheduler.nextAssignment(now: now) {
                if dispatchScan(assignment) || dispatchBatch(assignment) { continue }
                if workers[assignment.worker]?.isShared(for: assignment.item.job) == true {
                    guard let work = makeReference(assignment) else { continue }
                    if traces[JobID(work.jobID)] != nil {
                        traceDispatch(assignment, blocks: work.blocks.count, bytes: work.blocks.reduce(0) { $0 + $1.dataLength })
                    }
                    send(.workRef(work), to: assignment.worker)
                    for check in verification.outgoing.take(for: assignment.worker) { sendVerify(check, to: assignment.worker) }
                } else {
                    guard var dispatch = makeDispatch(assignment) else { continue }
                    dispatch.checks = verification.outgoing.take(for: assignment.worker)
                    if traces[dispatch.job] != nil {
                        dispatch.traced = true
                        traceDispatch(assignment, blocks: dispatch.blocks.count,
                                      bytes: dispatch.blocks.reduce(0) { $0 + $1.readRange.count - $1.dictionaryLength })
                    }
                    outbox.append(.dispatch(dispatch))
                }
            }
        } while flushIdlePlanners()
    }

    /// The blocks of an assigned item still worth sending (their files have not failed); nil,
    /// and the item settled, when none are.
    mutating func blocksToSend(_ key: ItemKey, in job: inout JobRecord) -> [BlockRef]? {
        let blocks = (job.items[key.item]?.blocks ?? []).filter { job.open[$0.file] != nil }
        if blocks.isEmpty {
            retire(key, in: &job, settling: true)
            job.sentBlocks.removeValue(forKey: key.item)
            return nil
        }
        job.sentBlocks[key.item] = blocks
        return blocks
    }

    /// An assignment for a shared-storage worker: references and a fresh attempt number.
    mutating func makeReference(_ assignment: Assignment) -> RefAssignment? {
        let key = assignment.item
        guard jobs[key.job]?.state == .running, let worker = workers[assignment.worker],
              var job = jobs.removeValue(forKey: key.job) else {
            scheduler.settle(key)
            return nil
        }
        defer { jobs[key.job] = job }
        guard let refs = blocksToSend(key, in: &job) else { return nil }
        let attempt = nextAttempt.take()
        job.attempts[key.item, default: [:]][assignment.worker] = attempt
        // A tar stream's blocks are never placed: their output is stitched like any multi-block file's.
        let placed = job.archive == nil && place(key.item, blocks: refs, in: &job)
        if placed { job.placedAttempts.insert(attempt) }
        let blocks = refs.compactMap { ref -> RefBlock? in
            guard let open = job.open[ref.file] else { return nil }
            let file = open.plan
            let range = file.layout.range(of: ref.index)
            let dictionary = Self.dictionaryRange(of: ref.index, in: file, setting: job.setting)
            if let segments = job.segments(of: dictionary.lowerBound..<range.upperBound) {
                // A block of a tar stream: its bytes are headers, files' ranges and zeros.
                var block = RefBlock(
                    file: UInt32(ref.file), index: UInt32(ref.index), path: job.sourceRoot.bytes, offset: dictionary.lowerBound,
                    dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound), dataLength: Int(range.upperBound - range.lowerBound),
                    isLast: file.layout.isLast(ref.index), size: file.stamp.size, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0,
                    permissions: file.stamp.permissions, header: file.layout.count == 1 ? header(of: file, in: job).encoded() : nil)
                block.segments = segments.map(\.wire)
                return block
            }
            return RefBlock(
                file: UInt32(ref.file), index: UInt32(ref.index), path: job.sourcePath(of: file).bytes, offset: dictionary.lowerBound,
                dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound), dataLength: Int(range.upperBound - range.lowerBound),
                isLast: file.layout.isLast(ref.index), size: file.stamp.size, modifiedSeconds: file.stamp.modifiedSeconds,
                modifiedNanoseconds: file.stamp.modifiedNanoseconds, inode: file.stamp.inode, permissions: file.stamp.permissions,
                header: file.layout.count == 1 ? header(of: file, in: job).encoded() : nil,
                placement: placed ? open.placement.map { RefPlacement(attempt: $0.output.value, offset: $0.offset(of: ref.index, in: file.layout)) } : nil)
        }
        var work = RefAssignment(
            jobID: key.job.value, itemID: key.item.value, attempt: attempt.value, setting: job.setting, workspace: job.workspace.path.bytes,
            syncPieces: !worker.sharesKernel, blocks: blocks)
        work.view = worker.view(for: key.job) ?? .same
        return work
    }

    /// Whether item `item` (blocks of one file) is written in place: the file is placed, and
    /// no dispatch of this item went out before, which might still be writing. A second
    /// dispatch breaks the file's placement: a writer joins it from here on (`Placement`).
    mutating func place(_ item: ItemID, blocks: [BlockRef], in job: inout JobRecord) -> Bool {
        guard let index = blocks.first?.file, blocks.allSatisfy({ $0.file == index }),
              let open = job.open[index], !open.joinedByWriter,
              Placement.applies(to: open.plan.layout, setting: job.setting) else { return false }
        var placement = open.placement ?? Placement(output: nextAttempt.take(), headerLength: header(of: open.plan, in: job).encoded().count)
        let placed = placement.admit(item: item)
        job.open[index]?.placement = placement
        if placement.broken { joinInWriter(index, of: &job) }
        return placed
    }

    /// The bytes before block `index` that prime it: none for an engine without a dictionary,
    /// nor for a block that starts a span of the member's offset table (docs/format.md: level
    /// 1 restarts unprimed every 4 MiB, as the drop-in does). Every path that compresses or
    /// checks a block takes its dictionary from here, so a worker, a verifier and the
    /// coordinator's own check agree on it.
    static func dictionaryRange(of index: Int, in file: PlannedFile, setting: EngineSetting) -> Range<UInt64> {
        let start = file.layout.range(of: index).lowerBound
        guard setting.engine.usesDictionary else { return start..<start }
        if let perSpan = spanBlocks(of: file, setting: setting), index % perSpan == 0 { return start..<start }
        return file.layout.dictionaryRange(of: index)
    }

    /// What a reader must load for an assignment: the item's blocks whose files have not
    /// failed. An item with nothing left is settled instead (nil).
    mutating func makeDispatch(_ assignment: Assignment) -> Dispatch? {
        let key = assignment.item
        guard jobs[key.job]?.state == .running, var job = jobs.removeValue(forKey: key.job) else {
            scheduler.settle(key)
            return nil
        }
        defer { jobs[key.job] = job }
        guard let refs = blocksToSend(key, in: &job) else { return nil }
        var blocks: [DispatchBlock] = []
        for ref in refs {
            guard let file = job.open[ref.file]?.plan else { continue }
            let range = file.layout.range(of: ref.index)
            let dictionary = Self.dictionaryRange(of: ref.index, in: file, setting: job.setting)
            blocks.append(DispatchBlock(
                ref: ref, path: job.sourcePath(of: file), stamp: file.stamp,
                readRange: dictionary.lowerBound..<range.upperBound,
                dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound),
                isLast: file.layout.isLast(ref.index), archive: job.archive?.layout))
        }
        return Dispatch(
            routingID: assignment.worker, job: key.job, item: key.item, setting: job.setting, blocks: blocks,
            verify: checksResults(of: key.job))
    }

    /// A reader could not load some files of `dispatch`: they fail, and the item goes again
    /// without them.
    mutating func readFailed(_ dispatch: Dispatch, failures: ReadFailures) {
        for (file, reason) in failures.files {
            fileFailed(FileKey(job: dispatch.job, file: file), reason: reason)
        }
        // The item's other blocks are still good; send it again without the failed files.
        scheduler.requeue(ItemKey(job: dispatch.job, item: dispatch.item), from: dispatch.routingID)
        metrics.itemsRequeued.increment()
        pump()
    }

    /// An item is written (or, `settling`, given up with nothing to write): the window may
    /// move past it and the job forgets it.
    mutating func retire(_ key: ItemKey, in job: inout JobRecord, settling: Bool = false) {
        if settling { scheduler.settle(key) } else { scheduler.written(key) }
        traces[key.job]?.written(key.item, at: micros)
        job.items.removeValue(forKey: key.item)
    }

    /// `retire` with settling, for a job in the table.
    mutating func settle(_ key: ItemKey) {
        scheduler.settle(key)
        traces[key.job]?.written(key.item, at: micros)
        jobs[key.job]?.items.removeValue(forKey: key.item)
    }
}
