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
extension CoordinatorCore {
    /// The `scan` that slice `slice` of job `job` goes out as: to its scanner under `attempt`,
    /// and to whoever checks its listing.
    func scanAssignment(_ slice: ScanSlice, item: ItemKey, attempt: AttemptID, job: JobRecord, scanner: PeerID, syncPieces: Bool) -> ScanAssignment {
        let batching = batchLimit(of: scanner, job: job)
        var scan = ScanAssignment(
            jobID: item.job.value, itemID: item.item.value, attempt: attempt.value, setting: job.setting, headerLevel: job.request.level,
            syncPieces: syncPieces, smallFileBytes: batching.smallFileBytes,
            maxEntries: min(max(1, configuration.scanBatchFiles), ProtocolLimits.maxBlocksPerItem), maxSmallBytes: UInt64(scanBytes),
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
        guard let job = jobs[key.job] else { return }
        let id = verification.nextCheckID
        verification.nextCheckID += 1
        let (key0, key1) = (rolls.next(), rolls.next())
        verification.listings[id] = PendingListingCheck(
            item: key, scanner: scanner, slice: slice, sections: report.sections,
            digest: report.listingDigest(key0: key0, key1: key1), verifier: verifier, sentAt: now, audits: audits)
        jobs[key.job]?.listingChecks += 1
        metrics.listingChecksByWorkers.increment()
        let scan = scanAssignment(slice, item: key, attempt: AttemptID(0), job: job, scanner: scanner, syncPieces: false)
        send(.checkListing(ListingCheck(checkID: id, key0: key0, key1: key1, scan: scan)), to: verifier)
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
    /// their ranges instead.
    mutating func takeBackListingChecks(now: ContinuousClock.Instant, from gone: PeerID?) {
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
