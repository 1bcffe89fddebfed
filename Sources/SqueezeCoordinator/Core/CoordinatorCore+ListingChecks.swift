import SqueezeIO
import SqueezeProtocol

/// Listing checks (docs/architecture.md, "Scans by workers"): a scanner that leaves files out
/// of its listing, or says its slice ends later than its limits end it, would leave them
/// uncompressed. So each listing by a worker is listed again by a worker of another principal
/// (`checkListing`, the same slice and limits) that answers with its digest under a key drawn
/// after the listing came in; the coordinator compares it with the digest of the listing it
/// took. Agreement settles it (one in `auditInterval` is listed here as well, against two
/// principals that agree on a lie). A difference, which may only be a tree that changed
/// between the two readings and so blames no one, has the coordinator list every name range
/// the scanner claimed, leaving out the names it listed (`ListingGap`): what is missing is
/// planned. The job is not scanned until every check is settled.
extension CoordinatorCore {
    /// The `scan` that slice `slice` of job `job` goes out as: to its scanner under `attempt`,
    /// and to whoever checks its listing.
    func scanAssignment(_ slice: ScanSlice, item: ItemKey, attempt: AttemptID, job: JobRecord, syncPieces: Bool) -> ScanAssignment {
        var scan = ScanAssignment(
            jobID: item.job.value, itemID: item.item.value, attempt: attempt.value, setting: job.setting, headerLevel: job.request.level,
            syncPieces: syncPieces, smallFileBytes: UInt64(job.planner.blockSize),
            maxEntries: min(max(1, configuration.scanBatchFiles), ProtocolLimits.maxBlocksPerItem), maxSmallBytes: UInt64(scanBytes),
            workspace: job.workspace.path.bytes, root: job.sourceRoot.bytes, destination: job.destination.bytes,
            directory: slice.directory.bytes, after: slice.after ?? [], exclude: job.walkExclude?.bytes ?? [])
        scan.more = slice.more.map(\.bytes)
        return scan
    }

    /// Has `scanner`'s listing of scan item `key` (slice `slice`) checked: by a worker of another
    /// principal that takes the job's scans and listing checks, least loaded first; with none,
    /// here. Counted on the job until settled.
    mutating func checkListing(_ report: ScanReport, slice: ScanSlice, item key: ItemKey, scanner: PeerID) {
        guard let job = jobs[key.job] else { return }
        let id = verification.nextCheckID
        verification.nextCheckID += 1
        let check = ListingLocalCheck(
            checkID: id, scan: scanAssignment(slice, item: key, attempt: AttemptID(0), job: job, syncPieces: false),
            key0: rolls.next(), key1: rolls.next())
        var pending = PendingListingCheck(
            item: key, scanner: scanner, slice: slice, sections: report.sections, check: check,
            digest: report.listingDigest(key0: check.key0, key1: check.key1), sentAt: now)
        jobs[key.job]?.listingChecks += 1
        let candidates = verifierCandidates(job: key.job, capability: WorkerHello.listingsCapability).filter { takesScans($0.id, job: key.job) }
        guard let principal = workers[scanner]?.principal,
              let verifier = VerifierChoice.choose(among: candidates, compressor: scanner, byReference: true, independentOf: [principal]) else {
            checkListingLocally(pending)
            return
        }
        pending.verifier = verifier
        verification.listings[id] = pending
        metrics.listingChecksByWorkers.increment()
        send(.checkListing(ListingCheck(checkID: id, key0: check.key0, key1: check.key1, scan: check.scan)), to: verifier)
    }

    /// The coordinator lists the slice itself, on its checking threads.
    mutating func checkListingLocally(_ pending: PendingListingCheck) {
        var pending = pending
        pending.verifier = nil
        verification.listings[pending.check.checkID] = pending
        metrics.listingChecksLocal.increment()
        outbox.append(.check(.listing(pending.check)))
    }

    /// A listing check's answer: from the verifier it went to (`peer`), or from the
    /// coordinator's own listing (nil). The same digest settles it; another lists what the
    /// scanner may have left out.
    mutating func listingChecked(_ answer: ListingChecked, from peer: PeerID?) {
        // A late answer (the check was taken back) or one from anyone else is ignored.
        guard let pending = verification.listings[answer.checkID], pending.verifier == peer else { return }
        verification.listings.removeValue(forKey: answer.checkID)
        let id = pending.item.job
        guard jobs[id]?.state == .running else { return }
        if answer.digest == pending.digest {
            if peer != nil, !pending.audit, verification.audit.shouldAudit(roll: rolls.next()) {
                var audit = pending
                audit.audit = true
                checkListingLocally(audit)
                return
            }
        } else {
            listingDiffers(pending, checkedBy: peer)
        }
        jobs[id]?.listingChecks -= 1
        checkFinished(id)
        continueScan(id)
        pump()
    }

    /// Two listings of one slice differ: the coordinator lists every name range the scanner
    /// claimed, less the names it listed, and plans what it finds.
    mutating func listingDiffers(_ pending: PendingListingCheck, checkedBy peer: PeerID?) {
        let id = pending.item.job
        metrics.listingDifferences.increment()
        logger.warning("two listings of a slice differ; the coordinator lists what the scanner may have left out", metadata: [
            "job": "\(id)", "directory": "\(BytePath(bytes: pending.check.scan.directory).display.debugDescription)",
            "scanner": "\(workerName(pending.scanner))", "checked-by": "\(peer.map { workerName($0) } ?? "the coordinator")",
        ])
        guard var job = jobs.removeValue(forKey: id) else { return }
        _ = scanItems(for: Self.gaps(in: pending.sections, of: pending.slice), in: &job, listedHere: true)
        jobs[id] = job
    }

    /// The name ranges a listing of `slice` claimed: each section's directory from where the
    /// slice starts it (after the slice's name for its own directory, from the start for the
    /// others) through its resume name (or to its end), less the names it holds.
    static func gaps(in sections: [ScanSection], of slice: ScanSlice) -> [ScanSlice] {
        sections.map { section in
            var known = Set<[UInt8]>()
            known.reserveCapacity(section.smallFiles.count + section.largeFiles.count + section.subdirectories.count + section.notes.count)
            for file in section.smallFiles { known.insert(file.relativePath) }
            for file in section.largeFiles { known.insert(file.relativePath) }
            for name in section.subdirectories { known.insert(name) }
            for note in section.notes { known.insert(note.name) }
            let directory = BytePath(bytes: section.directory)
            return ScanSlice(
                directory: directory, after: directory == slice.directory ? slice.after : nil,
                gap: ListingGap(through: section.resumeAfter.isEmpty ? nil : section.resumeAfter, known: known))
        }
    }

    /// Listing checks whose verifier left, or did not answer in time: listed here instead.
    mutating func takeBackListingChecks(now: ContinuousClock.Instant, from gone: PeerID?) {
        let overdue = verification.listings.filter { _, check in
            guard let verifier = check.verifier else { return false }
            return verifier == gone || now - check.sentAt > configuration.verifyDeadline
        }
        for (_, check) in overdue.sorted(by: { $0.key < $1.key }) {
            if gone == nil, let verifier = check.verifier { markLate(verifier) }
            guard jobs[check.item.job]?.state == .running else {
                verification.listings.removeValue(forKey: check.check.checkID)
                continue
            }
            checkListingLocally(check)
        }
    }
}
