import SqueezeIO
import SqueezeProtocol

/// Listing checks (docs/architecture.md, "Scans by workers"): a scanner that leaves files out
/// of its listing, or says its slice ends later than its limits end it, would leave them
/// uncompressed. So each listing by a worker is listed again by a worker of another principal
/// (`checkListing`, the same slice and limits) that answers with its digest under a key drawn
/// after the listing came in; the coordinator compares it with the digest of the listing it
/// took. Agreement settles it, but for one agreeing answer in `auditInterval` (against two
/// principals that agree on a lie), which a worker of a third principal lists again the same
/// way. Otherwise (a different digest, no such worker, a verifier gone or late) the
/// coordinator lists each name range the scanner claimed itself, passing over the
/// names it listed (`ListingGap`): no `stat` but for what is missing, which is planned. A
/// difference may only be a tree that changed between two readings, so it blames no one. The
/// job is not scanned until every check is settled and every range listed.
///
/// A listing that left files to compress waits for its batch's answer: its check rides in that
/// batch's `verifyBatch` when the verifier announced `batchListings`, and the digest comes back
/// in the batch's `verified` (two messages of a scan's round trip fewer). Otherwise, or when the
/// batch's check will not come, it goes out on its own.
extension CoordinatorCore {
    /// The `scan` that slice `slice` of job `job` goes out as: to its scanner under `attempt`,
    /// and to whoever checks its listing.
    func scanAssignment(_ slice: ScanSlice, item: ItemKey, attempt: AttemptID, job: JobRecord, scanner: PeerID, syncPieces: Bool) -> ScanAssignment {
        let batching = batchLimit(of: scanner, job: job)
        var scan = ScanAssignment(
            jobID: item.job.value, itemID: item.item.value, attempt: attempt.value, setting: job.setting, headerLevel: job.request.level,
            syncPieces: syncPieces, smallFileBytes: batching.smallFileBytes,
            maxEntries: sliceEntries, maxSmallBytes: UInt64(scanBytes),
            workspace: job.workspace.path.bytes, root: job.sourceRoot.bytes, destination: job.destination.bytes,
            directory: slice.directory.bytes, after: slice.after ?? [], exclude: job.walkExclude?.bytes ?? [])
        scan.more = slice.more.map(\.bytes)
        scan.memberBlocks = batching.blocks
        return scan
    }

    /// What worker `scanner`'s scans of `job` put in their batches: files of up to the job's
    /// block size; for a worker that announced `wholeFiles`, files of up to `wholeFileBytes`,
    /// cut into the job's blocks. The scan, its rules and its listing check all take this.
    func batchLimit(of scanner: PeerID, job: JobRecord) -> (smallFileBytes: UInt64, blocks: MemberBlocks?) {
        guard let whole = wholeFileLimit(of: job), takesWholeFiles(scanner) else { return (UInt64(job.planner.blockSize), nil) }
        return (whole, MemberBlocks(blockSize: job.planner.blockSize, engine: job.setting.engine))
    }

    /// The largest file a batch of `job` may hold whole: `wholeFileBytes`, when the job's
    /// blocks can be cut as a whole member's (`MemberBlocks`) and it is not an archive; nil
    /// when none may.
    func wholeFileLimit(of job: JobRecord) -> UInt64? {
        let blockSize = job.planner.blockSize
        let whole = min(configuration.wholeFileBytes, ProtocolLimits.maxBlockSize)
        guard whole > blockSize, MemberBlocks.blockSizes.contains(blockSize), job.archive == nil else { return nil }
        return UInt64(whole)
    }

    /// Has `scanner`'s listing of scan item `key` (slice `slice`) checked: by a worker of another
    /// principal that takes the job's scans and listing checks, least loaded first; with none,
    /// the coordinator lists the ranges it claimed. Counted on the job until settled.
    mutating func checkListing(_ report: ScanReport, slice: ScanSlice, item key: ItemKey, scanner: PeerID) {
        guard let verifier = listingChecker(job: key.job, scanner: scanner) else {
            listRanges(of: report.sections, slice: slice, job: key.job)
            return
        }
        sendListingCheck(report, slice: slice, item: key, scanner: scanner, to: verifier)
    }

    /// A worker that may list a slice of job `id` again: it takes the job's scans and listing
    /// checks, and is of another principal than `scanner` and everyone in `vouching` (whose
    /// word it audits); the least loaded. Nil when there is none.
    func listingChecker(job id: JobID, scanner: PeerID, vouching: [PeerID] = []) -> PeerID? {
        let candidates = verifierCandidates(job: id, capability: WorkerHello.listingsCapability).filter { takesScans($0.id, job: id) }
        var principals: [Principal] = []
        for peer in [scanner] + vouching {
            guard let principal = workers[peer]?.principal else { return nil }
            principals.append(principal)
        }
        return VerifierChoice.choose(among: candidates, compressor: scanner, byReference: true, independentOf: principals, excluding: Set(vouching))
    }

    /// Sends `verifier` the listing check of `scanner`'s listing `report` of slice `slice`,
    /// under a key drawn now; counted on the job until settled. `audits` names the worker
    /// whose agreeing answer this one audits.
    mutating func sendListingCheck(_ report: ScanReport, slice: ScanSlice, item key: ItemKey, scanner: PeerID, to verifier: PeerID, audits: PeerID? = nil) {
        guard let check = openListingCheck(report, slice: slice, item: key, scanner: scanner, to: verifier, audits: audits) else { return }
        send(.checkListing(check), to: verifier)
    }

    /// The check of `scanner`'s listing `report` of slice `slice`, under a key drawn now,
    /// recorded as out with `verifier` and counted on the job until settled (unless `riding`: a
    /// deferred check, counted already, that goes in its batch's `verifyBatch`); nil for a job
    /// that is gone. The caller sends it.
    mutating func openListingCheck(
        _ report: ScanReport, slice: ScanSlice, item key: ItemKey, scanner: PeerID, to verifier: PeerID, audits: PeerID? = nil, riding: Bool = false
    ) -> ListingCheck? {
        guard let job = jobs[key.job] else { return nil }
        let id = verification.nextCheckID
        verification.nextCheckID += 1
        let (key0, key1) = (rolls.next(), rolls.next())
        verification.listings[id] = PendingListingCheck(
            item: key, scanner: scanner, slice: slice, sections: report.sections,
            digest: report.listingDigest(key0: key0, key1: key1), verifier: verifier, sentAt: now, audits: audits)
        if riding {
            metrics.listingChecksWithBatches.increment()
        } else {
            jobs[key.job]?.listingChecks += 1
            metrics.listingChecksByWorkers.increment()
        }
        let scan = scanAssignment(slice, item: key, attempt: AttemptID(0), job: job, scanner: scanner, syncPieces: false)
        return ListingCheck(checkID: id, key0: key0, key1: key1, scan: scan)
    }

    /// Keeps the check of `scanner`'s listing `report` of scan item `key` (attempt `attempt`)
    /// for its batch's `verifyBatch`; counted on the job from now.
    mutating func deferListingCheck(_ report: ScanReport, slice: ScanSlice, item key: ItemKey, scanner: PeerID, attempt: AttemptID) {
        var listing = report
        listing.result = nil
        verification.deferredListings[key] = DeferredListingCheck(scanner: scanner, attempt: attempt, slice: slice, report: listing, since: now)
        jobs[key.job]?.listingChecks += 1
    }

    /// The deferred listing check of scan item `key`, opened to ride in the `verifyBatch` of
    /// `worker`'s answer `attempt` that goes to `verifier`: when it is that scanner's answer
    /// and the verifier may check the listing (it announced `batchListings` and takes the job's
    /// scans; its principal is already another than the compressor's). Otherwise nil, and the
    /// check stays deferred.
    mutating func listingCheckToRide(with key: ItemKey, worker: PeerID, attempt: AttemptID, to verifier: PeerID) -> ListingCheck? {
        guard let deferred = verification.deferredListings[key], deferred.scanner == worker, deferred.attempt == attempt,
              let capabilities = workers[verifier]?.hello.capabilities, capabilities.contains(WorkerHello.batchListingsCapability),
              capabilities.contains(WorkerHello.listingsCapability), takesScans(verifier, job: key.job) else { return nil }
        verification.deferredListings.removeValue(forKey: key)
        return openListingCheck(deferred.report, slice: deferred.slice, item: key, scanner: deferred.scanner, to: verifier, riding: true)
    }

    /// Sends scan item `key`'s deferred listing check on its own, as any (`checkListing`): its
    /// batch's check went to a verifier that cannot carry it, or will not come.
    mutating func releaseDeferredListing(_ key: ItemKey) {
        guard let deferred = verification.deferredListings.removeValue(forKey: key) else { return }
        jobs[key.job]?.listingChecks -= 1
        guard jobs[key.job]?.state == .running else { return }
        checkListing(deferred.report, slice: deferred.slice, item: key, scanner: deferred.scanner)
        continueScan(key.job)
    }

    /// The listing check `id` that rode in a `verifyBatch`, answered (or not) in its `verified`
    /// by `peer`: a digest is taken as a `listingChecked`; none (the verifier could not list
    /// the slice) has the coordinator list the ranges, as for a verifier that did not answer.
    mutating func ridingListingAnswered(_ id: UInt64, _ answer: ListingChecked?, from peer: PeerID) {
        if let answer, answer.checkID == id {
            listingChecked(answer, from: peer)
            return
        }
        guard let check = verification.listings[id], check.verifier == peer else { return }
        verification.listings.removeValue(forKey: id)
        guard jobs[check.item.job]?.state == .running else { return }
        listRanges(of: check.sections, slice: check.slice, job: check.item.job)
        settleListingCheck(of: check.item.job)
    }

    /// Deferred listing checks whose batch's check will not come, go out on their own: their
    /// scanner left or no longer holds that attempt of the item (its answer was refused, or
    /// taken as an ordinary bundle's), or the verify deadline passed.
    mutating func releaseStaleDeferredListings(now: ContinuousClock.Instant, from gone: PeerID?) {
        let stale = verification.deferredListings.filter { key, deferred in
            deferred.scanner == gone || now - deferred.since > configuration.verifyDeadline
                || jobs[key.job]?.attempts[key.item]?[deferred.scanner] != deferred.attempt
                || scheduler.verdict(key, from: deferred.scanner) != .accepted
        }
        for key in stale.keys.sorted(by: { ($0.job.value, $0.item.value) < ($1.job.value, $1.item.value) }) { releaseDeferredListing(key) }
    }

    /// The coordinator lists the name ranges `sections` claimed of job `id`'s slice `slice`,
    /// passing over the names they hold; each range counts as a slice outstanding until listed.
    mutating func listRanges(of sections: [ScanSection], slice: ScanSlice, job id: JobID) {
        guard var job = jobs.removeValue(forKey: id) else { return }
        metrics.listingChecksLocal.increment()
        _ = scanItems(for: Self.gaps(in: sections, of: slice), in: &job, listedHere: true)
        jobs[id] = job
    }

    /// A verifier's answer to a listing check. Only the worker it went to may answer, once.
    /// The same digest settles it, but one time in `auditInterval` a first check is audited: by
    /// a worker of a third principal, or here, listing the ranges. Another digest has the
    /// coordinator list the ranges the scanner claimed.
    mutating func listingChecked(_ answer: ListingChecked, from peer: PeerID) {
        // A late answer (the check was taken back) or one from anyone else is ignored.
        guard let pending = verification.listings[answer.checkID], pending.verifier == peer else { return }
        verification.listings.removeValue(forKey: answer.checkID)
        let id = pending.item.job
        guard jobs[id]?.state == .running else { return }
        if answer.digest != pending.digest {
            metrics.listingDifferences.increment()
            logger.warning("two listings of a slice differ; the coordinator lists what the scanner may have left out", metadata: [
                "job": "\(id)", "directory": "\(pending.slice.directory.display.debugDescription)",
                "scanner": "\(workerName(pending.scanner))", "checked-by": "\(workerName(peer))",
            ])
            listRanges(of: pending.sections, slice: pending.slice, job: id)
        } else if pending.audits == nil, verification.audit.shouldAudit(roll: rolls.next()) {
            if let auditor = listingChecker(job: id, scanner: pending.scanner, vouching: [peer]) {
                let report = ScanReport(jobID: id.value, itemID: pending.item.item.value, attempt: 0, outcome: .listed, sections: pending.sections)
                sendListingCheck(report, slice: pending.slice, item: pending.item, scanner: pending.scanner, to: auditor, audits: peer)
            } else {
                listRanges(of: pending.sections, slice: pending.slice, job: id)
            }
        }
        settleListingCheck(of: id)
    }

    /// A check of job `id` is settled: once none is left and every range is listed, the job's
    /// scan may be complete.
    mutating func settleListingCheck(of id: JobID) {
        jobs[id]?.listingChecks -= 1
        checkFinished(id)
        continueScan(id)
        pump()
    }

    /// The coordinator found `count` entries (the first at `first`, relative to the root) in
    /// ranges a worker's listing of job `id` claimed and did not name: the listing was short, or
    /// the tree grew meanwhile. They are planned.
    mutating func leftOutFound(_ count: Int, first: String, job id: JobID) {
        metrics.listingLeftOut.increment(by: count)
        logger.warning("found entries a worker's listing left out; they are compressed too", metadata: [
            "job": "\(id)", "entries": "\(count)", "first": "\(first.debugDescription)",
        ])
    }

    /// The name ranges a listing of `slice` claimed: each section's directory from where the
    /// slice starts it (after the slice's name for its own directory, from the start for the
    /// others) through its resume name (or to its end), less the names it holds.
    static func gaps(in sections: [ScanSection], of slice: ScanSlice) -> [ScanSlice] {
        sections.map { section in
            let directory = BytePath(bytes: section.directory)
            return ScanSlice(
                directory: directory, after: directory == slice.directory ? slice.after : nil,
                gap: ListingGap(through: section.resumeAfter.isEmpty ? nil : section.resumeAfter, section: section))
        }
    }

    /// Listing checks whose verifier left, or did not answer in time: the coordinator lists
    /// their ranges instead. Deferred ones that will not ride go out on their own.
    mutating func takeBackListingChecks(now: ContinuousClock.Instant, from gone: PeerID?) {
        releaseStaleDeferredListings(now: now, from: gone)
        let overdue = verification.listings.filter { _, check in check.verifier == gone || now - check.sentAt > configuration.verifyDeadline }
        for (id, check) in overdue.sorted(by: { $0.key < $1.key }) {
            verification.listings.removeValue(forKey: id)
            if gone == nil { markLate(check.verifier) }
            guard jobs[check.item.job]?.state == .running else { continue }
            listRanges(of: check.sections, slice: check.slice, job: check.item.job)
            settleListingCheck(of: check.item.job)
        }
    }
}
