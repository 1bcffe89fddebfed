import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Scans by workers (docs/architecture.md, "Scans by workers"): a job scanned in slices has
/// a scan item per slice of a directory. A shared-storage worker that takes scans lists the
/// slice and compresses its one-block files in the same item; its `scanned` turns the item
/// into a batch of those files, already answered, and the batch's rules take over (check,
/// grant, publish). The coordinator neither stats nor plans those files: it counts them.
/// Larger files it plans as any (a few per directory), subdirectories and the rest of a
/// directory become scan items. A scan item any other worker is assigned, or that workers
/// could not list, the coordinator lists itself (`JobPreparer.nextSlice`).
extension CoordinatorCore {
    /// Whether worker `peer` takes job `id`'s scan items: it takes its batches, announced
    /// `scans`, and sees the coordinator's inode numbers and nanosecond mtimes, so the stamps
    /// it lists are the ones every reader compares.
    func takesScans(_ peer: PeerID, job id: JobID) -> Bool {
        takesBatches(peer, job: id) && workers[peer]?.hello.capabilities?.contains(WorkerHello.scansCapability) == true
            && workers[peer]?.view(for: id) == .same
    }

    /// Scan items for `slices` (counted as outstanding until listed): directories to read from
    /// their start go out `scanGroup` to an item, the first with the rest as its `more`.
    mutating func scanItems(for slices: [ScanSlice], in job: inout JobRecord, listedHere: Bool = false) -> [PlannedItem] {
        // With no worker that may list them, the coordinator lists them as the walk would,
        // without waiting for a worker's credit.
        if listedHere {
            job.scansOutstanding += slices.count
            job.localSlices += slices
            return []
        }
        // The rest of a directory goes alone; directories from their start, in groups: at most
        // `scanGroup` to an item, in as many items as, with the scans already out, make two a
        // worker slot, so every worker has a folder to read while the first ones are read. Not
        // more: folders a worker did not reach, spread again while the others still read, made
        // slices that ended with their last folder, short of their limits; grouped, the small
        // tree is 28 batches a job instead of 36 (docs/benchmarks.md, "Folders spread as far as
        // the workers need").
        var grouped = slices.filter { $0.after != nil || !$0.more.isEmpty }
        let fresh = slices.filter { $0.after == nil && $0.more.isEmpty }.map(\.directory)
        let spread = max(1, 2 * max(1, workers.slots) - job.scansOutstanding - grouped.count)
        let items = max(1, min(fresh.count, spread))
        let size = min(Self.scanGroup, (fresh.count + items - 1) / items)
        for start in stride(from: 0, to: fresh.count, by: max(1, size)) {
            let group = fresh[start..<min(start + max(1, size), fresh.count)]
            grouped.append(ScanSlice(directory: group[group.startIndex], after: nil, more: Array(group.dropFirst())))
        }
        job.scansOutstanding += grouped.count
        return grouped.map { job.planner.scanItem($0, bytes: scanBytes) }
    }

    /// Directories one scan item names at most: a worker reads them in turn while its limits
    /// leave room, and those it did not reach come back as scans of their own.
    static let scanGroup = 64

    /// The bytes of one-block files a worker's slice stops at: `scanBatchScale` items', and
    /// never so many that one more file could take it past what a `scanned` may hold.
    var scanBytes: Int {
        let (scaled, overflow) = max(1, configuration.itemBytes).multipliedReportingOverflow(by: max(1, configuration.scanBatchScale))
        return min(overflow ? Int.max : scaled, ProtocolLimits.maxItemBytes - ProtocolLimits.maxBlockSize)
    }

    /// Entries of a kind a slice stops at, a worker's or the coordinator's own listing of one:
    /// `scanSliceFiles`, within what a `scan` may ask for.
    var sliceEntries: Int {
        min(max(1, configuration.scanSliceFiles), ProtocolLimits.maxBlocksPerItem)
    }

    /// Sends an assigned scan item as one `scan` when its worker takes scans; any other
    /// worker's, the coordinator lists itself. Returns false for an item that is not a scan.
    mutating func dispatchScan(_ assignment: Assignment) -> Bool {
        let key = assignment.item
        guard let slice = jobs[key.job]?.items[key.item]?.scan else { return false }
        guard jobs[key.job]?.state == .running, let job = jobs[key.job] else {
            settle(key)
            return true
        }
        guard takesScans(assignment.worker, job: key.job), let worker = workers[assignment.worker] else {
            settle(key)
            scanLocally(slice, job: key.job)
            return true
        }
        let attempt = nextAttempt.take()
        jobs[key.job]?.attempts[key.item, default: [:]][assignment.worker] = attempt
        let scan = scanAssignment(slice, item: key, attempt: attempt, job: job, scanner: assignment.worker, syncPieces: !worker.sharesKernel)
        if traces[key.job] != nil { traceDispatch(assignment, blocks: 0, bytes: 0) }
        metrics.scansByWorkers.increment()
        send(.scan(scan), to: assignment.worker)
        for check in verification.outgoing.take(for: assignment.worker) { sendVerify(check, to: assignment.worker) }
        return true
    }

    /// Whether some worker takes job `id`'s scan items, or may once its storage is known: one
    /// that announced `scans` (and `wholeFiles`, when asked) and is not remote, for this job or at all.
    func hasScanningWorker(for id: JobID, wholeFiles: Bool = false) -> Bool {
        workers.peers.contains { peer in
            guard let worker = workers[peer], worker.hello.capabilities?.contains(WorkerHello.scansCapability) == true,
                  worker.storage != .remote, !wholeFiles || takesWholeFiles(peer) else { return false }
            switch worker.jobStorage[id] {
            case .shared(let view): return view == .same && takesScans(peer, job: id)
            case .remote: return false
            case .probing, nil: return true
            }
        }
    }

    /// The largest file of several blocks the coordinator's own listing of job `job` bundles
    /// whole, as a scanning worker's listing would (`batchLimit`): in a sliced job that a
    /// worker taking whole files scans, or may. Otherwise 0: such files are cut into items.
    /// The root's first slice, and whatever the coordinator lists while workers scan, then cost
    /// it no items, stitches or checks of their own (a root of folders whose first folder held
    /// fourteen such files cost it half as much again as the same tree scanned by workers).
    func wholeFileBytes(listedHereFor job: JobRecord) -> UInt64 {
        guard job.sliced, let limit = wholeFileLimit(of: job), hasScanningWorker(for: job.id, wholeFiles: true) else { return 0 }
        return limit
    }

    /// How the files the coordinator listed itself are bundled when the planner is flushed. In
    /// a sliced job that workers scan, or may: in bundles of up to a scanning worker's batch
    /// (`scanBytes`), as that worker's listing of the same slice would make, spread only so far
    /// that, with the scan items still out, the items fill the workers' credit. Each batch costs
    /// the coordinator about eight messages whatever its size: the small tree's 169 files at
    /// its root were ten batches, spread over 64 as for the end of a walk, while its workers had
    /// scan items enough. Not spread less than the credit: the first worker whose storage is
    /// known takes items up to its credit, and with fewer, larger ones it took all of a small
    /// job while the others still answered their probes (measured: 12 files of 1 MiB, two
    /// workers, 9 % more wall time when spread over two items a slot). Otherwise nil: the
    /// planner's own spread.
    func bundleShape(listedHereFor job: JobRecord) -> (most: Int, bundles: Int)? {
        guard job.sliced, hasScanningWorker(for: job.id) else { return nil }
        return (scanBytes, max(1, workers.slots * creditPerSlot - job.scansOutstanding))
    }

    /// Bundles every small file `job`'s planner holds, as `bundleShape` says.
    func flushPlanner(of job: inout JobRecord) -> [PlannedItem] {
        guard let shape = bundleShape(listedHereFor: job) else { return job.planner.flush() }
        return job.planner.flush(upTo: shape.most, over: shape.bundles)
    }

    /// Has the coordinator list `slice` of job `id` (still counted outstanding until it has),
    /// as the walk goes: after the slices before it, while the job's open files are under the limit.
    mutating func scanLocally(_ slice: ScanSlice, job id: JobID) {
        guard jobs[id]?.state == .running else { return }
        jobs[id]?.localSlices.append(slice)
        continueScan(id)
    }

    /// Sends job `id`'s next slice to list here to the scanner.
    mutating func listNextSlice(of id: JobID) {
        guard let job = jobs[id], job.state == .running, let slice = job.localSlices.first else { return }
        jobs[id]?.localSlices.removeFirst()
        jobs[id]?.scanBusy = true
        metrics.scansLocal.increment()
        outbox.append(.scan(ScanRequest(
            job: id, walker: nil, slice: slice, exclude: job.walkExclude,
            context: JobPreparer.BatchContext(
                sourceRoot: job.sourceRoot, destination: job.destination, force: job.request.force,
                blockSize: job.planner.blockSize, batchFiles: sliceEntries, earlier: nil),
            firstIndex: 0, lastCreatedFolder: nil)))
    }

    /// A worker's `scanned`. From the worker holding the scan item, for the attempt it was
    /// given, and well formed for its slice: its files join the job, its subdirectories and
    /// the rest of its directory become scan items, and the item becomes a batch of its
    /// one-block files whose pieces are the worker's answer (in the `scanned`, or in the
    /// `resultRef` that follows it). A directory the worker could not
    /// list (or on another file system) the coordinator lists itself. A listing that breaks
    /// the slice's rules is refused: the item goes to another worker.
    mutating func scannedByWorker(_ report: ScanReport, from peer: PeerID) {
        let key = ItemKey(job: JobID(report.jobID), item: ItemID(report.itemID))
        guard let slice = jobs[key.job]?.items[key.item]?.scan else {
            listedBefore(report, key: key, from: peer)
            return
        }
        guard case .accepted = scheduler.verdict(key, from: peer), let given = jobs[key.job]?.attempts[key.item]?[peer],
              given.value == report.attempt else {
            countLate(scheduler.complete(key, from: peer, now: now), of: "scanned", key: key, from: peer)
            return
        }
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        if let defect = ScanListingRules.defect(of: report, slice: slice, smallFileBytes: batchLimit(of: peer, job: job).smallFileBytes, exclude: job.walkExclude) {
            jobs[key.job] = job
            metrics.scansRefused.increment()
            countMalformed(ProtocolError.malformed("scanned: \(defect)"), from: peer)
            itemWentWrong(key, on: peer, reason: "its listing broke the slice's rules (\(defect))")
            return
        }
        guard report.outcome == .listed else {
            jobs[key.job] = job
            _ = scheduler.complete(key, from: peer, now: now)
            traces[key.job]?.answered(key.item, by: peer, at: micros, won: true)
            settle(key)
            logger.info("a worker could not list a slice; the coordinator lists it", metadata: [
                "job": "\(key.job)", "worker": "\(workerName(peer))", "reason": "\(report.reason.prefix(200).debugDescription)",
            ])
            scanLocally(slice, job: key.job)
            pump()
            return
        }
        var small: [PlannedFile] = []
        small.reserveCapacity(report.sections.reduce(0) { $0 + $1.smallFiles.count })
        var large: [PlannedFile] = []
        large.reserveCapacity(report.sections.reduce(0) { $0 + $1.largeFiles.count })
        var slices: [ScanSlice] = []
        let read = Set(report.sections.dropFirst().map(\.directory))
        var skipped: [EntryNote] = []
        var failed: [EntryNote] = []
        for section in report.sections {
            let directory = BytePath(bytes: section.directory)
            for note in section.notes {
                let entry = EntryNote(path: directory.appending(note.name).display, reason: note.reason)
                if note.failed { failed.append(entry) } else { skipped.append(entry) }
            }
            appendPlannedFiles(section.smallFiles, in: directory, to: &small, from: job.filesPlanned + small.count, job: job)
            // Subdirectories the worker did not read as sections of their own are scans of their own.
            for name in section.subdirectories {
                let path = directory.appending(name)
                if !read.contains(path.bytes) { slices.append(ScanSlice(directory: path, after: nil)) }
            }
            if !section.resumeAfter.isEmpty { slices.append(ScanSlice(directory: directory, after: section.resumeAfter)) }
        }
        // The slice's further directories the worker did not reach go out again.
        for directory in slice.more where !read.contains(directory.bytes) { slices.append(ScanSlice(directory: directory, after: nil)) }
        job.failed += failed
        job.skipped += skipped
        metrics.filesFailed.increment(by: failed.count)
        metrics.filesSkipped.increment(by: skipped.count)
        emit(to: key.job, skipped: skipped, failed: failed)
        for section in report.sections {
            appendPlannedFiles(section.largeFiles, in: BytePath(bytes: section.directory), to: &large, from: job.filesPlanned + small.count + large.count, job: job)
        }
        // This scan is answered: what it leaves is spread over the scans still out.
        job.scansOutstanding -= 1
        var items = scanItems(for: slices, in: &job, listedHere: !hasScanningWorker(for: key.job))
        let scans = items.count
        items += job.planner.add(large)
        if job.scansOutstanding == 0 { items += flushPlanner(of: &job) }
        job.items[key.item]?.scan = nil
        if !small.isEmpty {
            job.items[key.item]?.files = small
            job.items[key.item]?.bytes = Int(clamping: small.reduce(0) { $0 + $1.stamp.size })
        }
        // Two calls, not one over `small + large`: a copy of every file's plan saved.
        job.add(files: small, items: [], batched: true)
        job.add(files: large, items: items)
        job.dirty = true
        traces[key.job]?.queued(items.lazy.map(\.id), at: micros)
        let window = self.window(for: job)
        jobs[key.job] = job
        if checksResults(of: key.job) {
            // A listing with files to compress is checked with their batch, in one round trip.
            if small.isEmpty {
                checkListing(report, slice: slice, item: key, scanner: peer)
            } else {
                deferListingCheck(report, slice: slice, item: key, scanner: peer, attempt: given)
            }
        }
        // Scans go before the items already waiting: they find the rest of the work.
        scheduler.addItems(key.job, count: items.count, window: window, bytes: items.map { UInt64(max(0, $0.bytes)) }, urgent: scans)
        if let result = report.result {
            // The batch's answer: checked, granted and published as any batch's.
            acceptCounting(result, from: peer)
        } else if !small.isEmpty {
            // Its pieces follow in a `resultRef`: meanwhile the item is a batch its worker holds.
        } else {
            if let since = scheduler.heldSince(key, by: peer) { CoordinatorMetrics.record(now - since, in: metrics.itemDuration) }
            _ = scheduler.complete(key, from: peer, now: now)
            traces[key.job]?.answered(key.item, by: peer, at: micros, won: true)
            jobs[key.job]?.attempts.removeValue(forKey: key.item)
            if var job = jobs.removeValue(forKey: key.job) {
                retire(key, in: &job)
                jobs[key.job] = job
            }
        }
        for worker in workers.peers { assignStorage(worker: worker, job: key.job) }
        checkFinished(key.job)
        continueScan(key.job)
        pump()
        sendChecksLeft(for: peer)
    }

    /// A `scanned` for an item that is not a scan (any more). From the worker holding it, once
    /// a listing made it a batch: with the batch's pieces, it is the whole answer sent again
    /// on a later registration (the worker cannot know whether its listing arrived), and the
    /// pieces are the batch's answer. Anything else from its holder no worker sends: counted,
    /// and the item goes to another worker. From any other worker, it is late.
    mutating func listedBefore(_ report: ScanReport, key: ItemKey, from peer: PeerID) {
        switch scheduler.verdict(key, from: peer) {
        case .unknownItem:
            countMalformed(ProtocolError.malformed("scanned for unknown item \(key.item)"), from: peer)
        case .accepted:
            // The decoder holds the pieces to the `scanned`'s job, item and attempt.
            if jobs[key.job]?.items[key.item]?.files != nil, let result = report.result {
                acceptCounting(result, from: peer)
            } else {
                countMalformed(ProtocolError.malformed("scanned for item \(key.item), which is not a scan, without its batch's pieces"), from: peer)
                itemWentWrong(key, on: peer, reason: "a listing for an item that is not a scan")
            }
            pump()
            sendChecksLeft(for: peer)
        case .late, .notAssigned:
            countLate(scheduler.complete(key, from: peer, now: now), of: "scanned", key: key, from: peer)
        }
    }

    /// Appends a `scanned`'s files to `planned` as planned files of the job, numbered from
    /// `first`. The device is the root's: the worker listed only a directory on the root's
    /// file system.
    func appendPlannedFiles(_ files: [BatchFile], in directory: BytePath, to planned: inout [PlannedFile], from first: Int, job: JobRecord) {
        for (position, file) in files.enumerated() {
            let stamp = FileStamp(
                size: file.size, modifiedSeconds: file.modifiedSeconds, modifiedNanoseconds: file.modifiedNanoseconds,
                device: job.rootDevice, inode: file.inode, permissions: file.permissions)
            planned.append(PlannedFile(
                index: first + position, relativePath: directory.appending(file.relativePath), stamp: stamp,
                layout: BlockLayout(fileSize: file.size, blockSize: job.planner.blockSize)))
        }
    }
}
