import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol

/// Jobs: scan batches, windows, and how each job ends (`JobPhase`).
extension CoordinatorCore {
    /// The id for a new job, or the journal's id of a job it resumes; ids go on from the largest.
    mutating func takeJobID(resuming: JobID?) -> JobID {
        let id = resuming ?? nextJobID
        // The id may come from the journal file: no overflow trap on the largest one.
        nextJobID = max(nextJobID, id.value == .max ? id : id.advanced(by: 1))
        return id
    }

    /// Starts `job`, which the actor prepared (its first batch scanned, its record journaled):
    /// it joins the schedule, its clients get `started`, and its first batch is planned. A job
    /// with an `owner` is cancelled when that client falls silent.
    mutating func start(_ job: JobRecord, client: PeerID, first: PreparedBatch, resumedWith publishedBefore: Int?) {
        var job = job
        let id = job.id
        if let owner = job.owner {
            let interval = job.request.heartbeatMilliseconds.map { Duration.milliseconds($0) } ?? configuration.heartbeatInterval
            job.ownerDeadline = interval * configuration.liveness
            clientsHeard[owner] = now
        }
        jobs[id] = job
        jobOrder.append(id)
        if job.request.trace == true { startTrace(of: id) }
        if !configuration.verifyResults || job.request.verify == false { verification.uncheckedJobs.insert(id) }
        scheduler.addJob(id, items: 0, window: 1, engine: job.setting.engine, client: client)
        var start = JobStart(
            jobID: id.value, source: job.sourceDisplay, destination: job.destinationDisplay,
            files: first.files.count + first.kept.count,
            bytes: first.files.reduce(0) { $0 + $1.stamp.size } + first.kept.reduce(0) { $0 + $1.bytesIn }, engine: job.setting.description)
        start.scanning = first.finished || (job.sliced && first.slices.isEmpty) ? nil : true
        start.archiveEntries = job.archive?.layout.entryCount
        emit(to: id, .started(start))
        if let publishedBefore {
            logger.info("job resumed", metadata: ["job": "\(id)", "source": "\(job.request.source)", "published before": "\(publishedBefore)"])
        } else {
            logger.info("job started", metadata: ["job": "\(id)", "source": "\(job.request.source)"])
        }
        scanned(id, batch: first)
    }

    /// Plans a batch of a job's scan: its files join the job, the planner's items the
    /// scheduler, and the scan goes on while the job's open files are under the limit.
    mutating func scanned(_ id: JobID, batch: PreparedBatch) {
        guard var job = jobs.removeValue(forKey: id) else { return }
        job.scanBusy = false
        guard job.state == .running else {
            job.walker = nil
            jobs[id] = job
            return
        }
        emit(to: job.id, skipped: batch.skipped, failed: batch.failed)
        metrics.filesSkipped.increment(by: batch.skipped.count)
        metrics.filesFailed.increment(by: batch.failed.count)
        job.skipped += batch.skipped
        job.failed += batch.failed
        job.keep(batch.kept)
        var files = batch.files
        if job.sliced {
            // Slices are listed in any order: their files are numbered as they join.
            for position in files.indices { files[position].index = job.filesPlanned + position }
            if batch.fromSlice { job.scansOutstanding -= 1 }
            if batch.leftOut > 0 {
                let first = batch.files.first?.relativePath.display ?? batch.failed.first?.path ?? batch.skipped.first?.path
                    ?? batch.slices.first?.directory.display ?? ""
                leftOutFound(batch.leftOut, first: first, job: id)
            }
        }
        // Scan items first: they find the rest of the work (and the job's totals), so they go
        // out before the files found with them, and before any item already waiting.
        var items = scanItems(for: batch.slices, in: &job, listedHere: !hasScanningWorker(for: id))
        let scans = items.count
        let whole = wholeFileBytes(listedHereFor: job)
        items += job.planner.add(files, wholeUpTo: whole)
        if batch.finished || (job.sliced && job.scansOutstanding == 0) {
            job.walker = nil
            items += flushPlanner(of: &job)
        }
        job.lastCreatedFolder = batch.lastCreatedFolder
        job.add(files: files, items: items, wholeUpTo: whole)
        traces[id]?.queued(items.lazy.map(\.id), at: micros)
        job.dirty = true
        let window = self.window(for: job)
        jobs[id] = job
        scheduler.addItems(id, count: items.count, window: window, bytes: items.map { UInt64(max(0, $0.bytes)) }, urgent: scans)
        for peer in workers.peers { assignStorage(worker: peer, job: id) }
        checkFinished(id)
        pump()
        continueScan(id)
        flushIfOnlyFlushLeft(id)
    }

    /// Dispatch may run this many items ahead of the oldest unwritten one (`DispatchWindow`):
    /// every worker stays busy; what waits in memory is the relay budget's concern.
    func window(for job: JobRecord) -> Int {
        DispatchWindow().items(largestItem: job.largestItem, credit: workers.slots * creditPerSlot)
    }

    /// Items each worker slot may hold, as the scheduler counts them.
    var creditPerSlot: Int { min(max(1, configuration.creditPerSlot), 64) }
    /// Items each slot may hold when they travel in messages: one compressing and one queued
    /// hides the round trip (a 16 MiB item keeps a level-6 slot busy for about 0.4 s here);
    /// each more is 16 MiB held on its way. Measured on mixed.cat with two remote one-slot
    /// workers (medians of 4 interleaved runs): four per slot peaked at 200 MiB and cost 1.36
    /// coordinator CPU-s per GB; two, 131 MiB and 1.08, and no slower.
    static let relayCreditPerSlot = 2
    /// Sets job `id`'s window again: a worker came or left, so the cluster's credit changed.
    mutating func refreshWindow(_ id: JobID) {
        guard let job = jobs[id], job.state == .running else { return }
        scheduler.setWindow(id, window(for: job))
    }

    /// Asks the scanner for job `id`'s next batch unless one is being read, the walk is over,
    /// or the job holds as many open files as it may.
    mutating func continueScan(_ id: JobID) {
        // Checked field by field: this runs for every finished file, and a copy of the job is dear.
        guard started, !stopping, pressure.allowsScans, jobs[id]?.state == .running, jobs[id]?.scanBusy == false,
              let open = jobs[id]?.unfinishedFiles, open < configuration.openFilesLimit else { return }
        if jobs[id]?.localSlices.isEmpty == false {
            listNextSlice(of: id)
            return
        }
        guard let walker = jobs[id]?.walker, let job = jobs[id] else { return }
        jobs[id]?.scanBusy = true
        outbox.append(.scan(ScanRequest(
            job: id, walker: walker,
            context: JobPreparer.BatchContext(
                sourceRoot: job.sourceRoot, destination: job.destination, force: job.request.force,
                blockSize: job.planner.blockSize, batchFiles: configuration.scanBatchFiles, earlier: job.earlier),
            firstIndex: job.filesPlanned, lastCreatedFolder: job.lastCreatedFolder)))
    }

    /// Bundles the small files a job's planner holds when the job has nothing left to send:
    /// workers must not wait for a bundle to fill.
    /// Returns whether any did.
    mutating func flushIdlePlanners() -> Bool {
        var flushed = false
        for id in jobOrder where scheduler.unsent(of: id) == 0 {
            guard jobs[id]?.state == .running, jobs[id]?.planner.hasQueued == true,
                  var job = jobs.removeValue(forKey: id) else { continue }
            let items = flushPlanner(of: &job)
            job.add(files: [], items: items)
            let window = self.window(for: job)
            jobs[id] = job
            scheduler.addItems(id, count: items.count, window: window, bytes: items.map { UInt64(max(0, $0.bytes)) })
            flushed = flushed || !items.isEmpty
        }
        return flushed
    }

    /// Cancels a running job: its items are dropped everywhere and its temporaries removed. It
    /// ends as `state`: cancelled, or failed when it cannot go on (its journal failed).
    mutating func cancel(job id: JobID, reason: String = "cancelled", as state: JobState = .cancelled) {
        guard jobs[id]?.phase.isRunning == true else { return }
        jobs[id]?.message = reason
        perform(jobs[id]?.phase.cancel(as: state, writers: writers) ?? [], job: id)
        pump()
    }

    /// Carries out what a change of job `id`'s phase asks for.
    mutating func perform(_ actions: [JobPhaseAction], job id: JobID) {
        for action in actions {
            switch action {
            case .dropInFlight: dropInFlight(of: id)
            case .discardInWriters: for partition in 0..<writers { write(partition: partition, .discardJob(id)) }
            case .removeWorkspace: removeWorkspace(of: id)
            case .finish: finish(id)
            }
        }
    }

    /// A writer partition has removed the temporaries of job `id`.
    mutating func discarded(_ id: JobID) {
        perform(jobs[id]?.phase.writerDiscarded() ?? [], job: id)
    }

    /// Has a writer remove job `id`'s workspace, after the commands before it.
    mutating func removeWorkspace(of id: JobID) {
        guard let job = jobs[id] else { return }
        guard writers > 0 else {
            // No writers run (the coordinator is not running): nothing else uses the folder.
            outbox.append(.removeWorkspace(job.workspace))
            workspaceRemoved(id)
            return
        }
        write(partition: 0, .removeWorkspace(id, job.workspace))
    }

    /// A writer removed job `id`'s workspace: the job can be reported finished.
    mutating func workspaceRemoved(_ id: JobID) {
        perform(jobs[id]?.phase.workspaceRemoved() ?? [], job: id)
    }

    /// Ends job `id`'s dispatch and tells the workers holding its items to drop them.
    mutating func dropInFlight(of id: JobID) {
        for worker in scheduler.removeJob(id) { send(.cancelJob(id.value), to: worker) }
    }

    /// Reports job `id` finished (its last progress, trace and summary to its clients, its end to
    /// the journal and the history) and forgets it.
    mutating func finish(_ id: JobID) {
        guard let job = jobs.removeValue(forKey: id) else { return }
        admission.release(job.admittedAs)
        // The counters' last sample, as the job ends: a job shorter than a progress interval
        // would otherwise have none.
        sampleTrace(of: job)
        jobOrder.removeAll { $0 == id }
        dropInFlight(of: id)
        verification.forget(job: id)
        if case .ended(_, workspaceRemoved: false) = job.phase { leftWorkspaces.append(job.workspace) }
        workers.forget(job: id)
        let final = job
        let summary = final.summary(now: now)
        metrics.jobsEnded[final.state]?.increment()
        if let chunk = endTrace(of: id) { emit(to: final.id, .trace(chunk)) }
        emit(to: final.id, .progress(final.snapshot(workers: workers.count, now: now)))
        emit(to: final.id, .finished(summary))
        outbox.append(.endJobEvents(final.id))
        outbox.append(.journal(.ended(id, state: JournalJobState(final.state), totals: final.journalTotals, message: final.message, at: wall)))
        endedJobs.insert((JobAccepted(jobID: id.value, destination: job.destinationDisplay), summary), at: 0)
        if endedJobs.count > 20 { endedJobs.removeLast() }
        finishedJobs.insert(final.status(now: now), at: 0)
        if finishedJobs.count > configuration.historyJobs { finishedJobs.removeLast(finishedJobs.count - configuration.historyJobs) }
        logger.info("job ended", metadata: ["job": "\(id)", "state": "\(final.state)", "failed": "\(job.failed.count)"])
        updateGauges()
    }

    /// Completes job `id` once every file is published or failed and the scan is over.
    mutating func checkFinished(_ id: JobID) {
        guard let job = jobs[id], job.phase.isRunning, job.allFilesFinished, !awaitsRecheck(id) else { return }
        // Every output is published or failed; late answers are dropped from here on.
        perform(jobs[id]?.phase.complete(at: now, outstanding: !job.freeing.isEmpty) ?? [], job: id)
    }

    /// Removes a completed job's workspace once no discard is outstanding (or their grace is
    /// over): workers unlink the stitched files' pieces, so the coordinator finds little left.
    mutating func removeWorkspaceOnceFreed(_ id: JobID) {
        guard let job = jobs[id], case .completing = job.phase else { return }
        perform(jobs[id]?.phase.discardsAnswered(outstanding: !job.freeing.isEmpty, at: now) ?? [], job: id)
    }

    /// A worker answered a discard (or is gone: `all` forgets every discard it was sent).
    mutating func freed(job id: JobID, by peer: PeerID, all: Bool = false) {
        guard let outstanding = jobs[id]?.freeing[peer] else { return }
        if all || outstanding <= 1 {
            jobs[id]?.freeing.removeValue(forKey: peer)
        } else {
            jobs[id]?.freeing[peer] = outstanding - 1
        }
        removeWorkspaceOnceFreed(id)
    }
}
