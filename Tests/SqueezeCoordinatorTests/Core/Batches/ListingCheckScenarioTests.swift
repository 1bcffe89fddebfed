import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Listing checks: a worker's listing of a slice is listed again by a worker of another
/// principal, which answers with a keyed digest; the coordinator compares it with the digest
/// of the listing it took. A difference (and no such worker, a verifier gone or late, an
/// audit) has the coordinator list the ranges the scanner claimed, and plan only what the
/// scanner left out.
@Suite("CoordinatorCore: listing checks")
struct ListingCheckScenarioTests {
    /// A checked sliced job whose folder `sub` holds `x` and `y` (10 bytes each); returns the
    /// harness, the job, and the scan item for `sub` with its worker.
    private static func job(
        pids: (Int32, Int32) = (1, 2), metrics: CountingMetrics = CountingMetrics()
    ) throws -> (harness: CoreHarness, job: JobID, sub: (scan: ScanAssignment, peer: PeerID)) {
        let (harness, job, started) = try ScanScenarioTests.slicedJob(listings: true, verify: true, pids: pids, metrics: metrics)
        try Data(repeating: 2, count: 10).write(to: URL(fileURLWithPath: harness.lastFolder + "/src/sub/y"))
        let sub = try #require(ScanScenarioTests.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        return (harness, job, sub)
    }

    /// `scan`'s listing as a worker reads it, with a piece per small file, less the names in
    /// `leavingOut`.
    private static func scanned(_ scan: ScanAssignment, leavingOut: Set<String> = [], from peer: PeerID) -> CoordinatorEvent {
        var report = scan.listing().report
        for index in report.sections.indices {
            report.sections[index].smallFiles.removeAll { leavingOut.contains(String(decoding: $0.relativePath, as: UTF8.self)) }
        }
        let small = report.sections.flatMap(\.smallFiles)
        report.result = RefResult(
            jobID: scan.jobID, itemID: scan.itemID, attempt: scan.attempt,
            pieces: small.map { PieceReport(crc: 7, rawLength: Int($0.size), pieceLength: 100) })
        return .workerMessage(.scanned(report), from: peer, origin: nil)
    }

    private static func checks(in effects: [CoordinatorEffect]) -> [(check: ListingCheck, peer: PeerID)] {
        effects.sent.compactMap { if case .checkListing(let check) = $0.message { (check, $0.peer) } else { nil } }
    }

    /// The ranges a listing claimed that the coordinator lists itself, in `effects`.
    private static func gaps(in effects: [CoordinatorEffect]) -> [ScanSlice] {
        effects.compactMap { if case .scan(let request) = $0, request.slice?.gap != nil { request.slice } else { nil } }
    }

    /// Lists every slice the coordinator was asked to list in `effects` as its scanner would,
    /// and hands the core the result; returns the paths planned and the effects.
    private static func listLocally(
        _ effects: [CoordinatorEffect], job: JobID, harness: inout CoreHarness
    ) throws -> (planned: [String], effects: [CoordinatorEffect]) {
        var planned: [String] = []
        var after: [CoordinatorEffect] = []
        for request in effects.compactMap({ if case .scan(let request) = $0 { request } else { nil } }) {
            let slice = try #require(request.slice)
            let batch = try JobPreparer.nextSlice(slice, exclude: request.exclude, context: request.context, lastCreated: nil)
            planned += batch.files.map(\.relativePath.display)
            after += harness.handle(.scanned(job, batch), at: .milliseconds(50))
        }
        return (planned, after)
    }

    @Test("a listing goes to the other principal's worker with the scanner's slice and limits; the job is not scanned until it agrees")
    func agreeingCheck() throws {
        let metrics = CountingMetrics()
        var (harness, job, sub) = try Self.job(metrics: metrics)
        defer { harness.cleanUp() }
        let listed = harness.handle(Self.scanned(sub.scan, from: sub.peer), at: .milliseconds(1))
        let sent = try #require(Self.checks(in: listed).first)
        #expect(Self.checks(in: listed).count == 1)
        #expect(sent.peer != sub.peer, "never the scanner itself")
        var expected = sub.scan
        expected.attempt = 0
        expected.syncPieces = false
        #expect(sent.check.scan == expected)
        #expect(harness.core.jobs[job]?.listingChecks == 1 && harness.core.jobs[job]?.scanComplete == false)

        // The scanner answering its own check is not heard; the verifier's true digest settles it.
        let digest = sent.check.scan.listing().report.listingDigest(key0: sent.check.key0, key1: sent.check.key1)
        harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: sent.check.checkID, digest: digest)), from: sub.peer, origin: nil),
                       at: .milliseconds(2))
        #expect(harness.core.jobs[job]?.listingChecks == 1)
        let outstanding = harness.core.jobs[job]?.scansOutstanding
        let settled = harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: sent.check.checkID, digest: digest)),
                                                    from: sent.peer, origin: nil), at: .milliseconds(3))
        #expect(harness.core.jobs[job]?.listingChecks == 0)
        #expect(harness.core.jobs[job]?.scansOutstanding == outstanding, "nothing more to list")
        #expect(Self.gaps(in: settled).isEmpty)
        #expect(metrics.total("squeeze_listing_checks_total") == 1 && metrics.total("squeeze_listing_differences_total") == 0)
        #expect(metrics.total("squeeze_listing_checks_total", [("by", "worker")]) == 1, "alone: the verifier does not take them with batches")
    }

    @Test("a scanner that leaves a file out: the digests differ, and the coordinator lists the slice's range and plans only that file")
    func fileLeftOut() throws {
        let metrics = CountingMetrics()
        var (harness, job, sub) = try Self.job(metrics: metrics)
        defer { harness.cleanUp() }
        let listed = harness.handle(Self.scanned(sub.scan, leavingOut: ["y"], from: sub.peer), at: .milliseconds(1))
        #expect(harness.core.jobs[job]?.items[ItemID(sub.scan.itemID)]?.files?.map(\.relativePath.display) == ["sub/x"])
        let sent = try #require(Self.checks(in: listed).first)
        let digest = sent.check.scan.listing().report.listingDigest(key0: sent.check.key0, key1: sent.check.key1)
        let planned = harness.core.jobs[job]?.filesPlanned ?? 0
        let differs = harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: sent.check.checkID, digest: digest)),
                                                    from: sent.peer, origin: nil), at: .milliseconds(2))
        let gap = try #require(Self.gaps(in: differs).first)
        #expect(gap.directory == BytePath("sub") && gap.after == nil && gap.gap?.through == nil && gap.gap?.knownNames() == [Array("x".utf8)])
        #expect(harness.core.jobs[job]?.listingChecks == 0 && harness.core.jobs[job]?.scanComplete == false, "the range is still to list")
        #expect(try Self.listLocally(differs, job: job, harness: &harness).planned == ["sub/y"])
        #expect(harness.core.jobs[job]?.filesPlanned == planned + 1)
        #expect(metrics.total("squeeze_listing_differences_total") == 1 && metrics.total("squeeze_listing_left_out_total") == 1)
    }

    @Test("with no worker of another principal, the coordinator lists the ranges itself, by name, and plans what was left out")
    func noIndependentVerifier() throws {
        var (harness, job, sub) = try Self.job(pids: (1, 1))
        defer { harness.cleanUp() }
        let listed = harness.handle(Self.scanned(sub.scan, leavingOut: ["x"], from: sub.peer), at: .milliseconds(1))
        #expect(Self.checks(in: listed).isEmpty, "the other worker is the same process")
        #expect(Self.gaps(in: listed).map(\.directory) == [BytePath("sub")])
        let (planned, _) = try Self.listLocally(listed, job: job, harness: &harness)
        #expect(planned == ["sub/x"])
        #expect(harness.core.jobs[job]?.listingChecks == 0)
    }

    @Test("a verifier that leaves, or lets the deadline pass, has its ranges listed here; a late answer is ignored", arguments: [true, false])
    func verifierGone(leaves: Bool) throws {
        var (harness, job, sub) = try Self.job()
        defer { harness.cleanUp() }
        let listed = harness.handle(Self.scanned(sub.scan, from: sub.peer), at: .milliseconds(1))
        let sent = try #require(Self.checks(in: listed).first)
        if !leaves {
            // Both workers keep beating: the check is taken back for its deadline, not a departure.
            for peer in [a, b] {
                harness.handle(.workerMessage(.heartbeat, from: peer, origin: nil), at: harness.core.configuration.verifyDeadline + .milliseconds(500))
            }
        }
        let taken = leaves
            ? harness.handle(.workerMessage(.goodbye, from: sent.peer, origin: nil), at: .milliseconds(2))
            : harness.handle(.tick, at: harness.core.configuration.verifyDeadline + .seconds(1))
        #expect(leaves || harness.core.workers[sent.peer] != nil, "a late verifier is still registered")
        #expect(Self.gaps(in: taken).map(\.directory) == [BytePath("sub")])
        #expect(harness.core.jobs[job]?.listingChecks == 0)
        let outstanding = harness.core.jobs[job]?.scansOutstanding
        if !leaves {
            let digest = sent.check.scan.listing().report.listingDigest(key0: sent.check.key0, key1: sent.check.key1)
            let late = harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: sent.check.checkID, digest: digest ^ 1)),
                                                     from: sent.peer, origin: nil), at: harness.core.configuration.verifyDeadline + .seconds(2))
            #expect(Self.gaps(in: late).isEmpty && harness.core.jobs[job]?.scansOutstanding == outstanding, "the late answer changes nothing")
            #expect(harness.core.jobs[job]?.listingChecks == 0)
        }
        // The scanner listed everything: its ranges hold nothing more.
        #expect(try Self.listLocally(taken, job: job, harness: &harness).planned.isEmpty)
    }

    /// With every agreeing answer drawn for an audit: the scan of `sub` in `started` is listed by
    /// its worker, and its check answered with the true digest by the worker it went to. The
    /// scan, the check, and what the core did with the answer.
    private static func agreeDrawnForAudit(
        _ started: [CoordinatorEffect], harness: inout CoreHarness
    ) throws -> (sub: (scan: ScanAssignment, peer: PeerID), sent: (check: ListingCheck, peer: PeerID), effects: [CoordinatorEffect]) {
        harness.core.rolls = FixedRolls(value: 0)
        let sub = try #require(ScanScenarioTests.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let listed = harness.handle(Self.scanned(sub.scan, from: sub.peer), at: .milliseconds(1))
        let sent = try #require(Self.checks(in: listed).first)
        let digest = sent.check.scan.listing().report.listingDigest(key0: sent.check.key0, key1: sent.check.key1)
        let effects = harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: sent.check.checkID, digest: digest)),
                                                    from: sent.peer, origin: nil), at: .milliseconds(2))
        return (sub, sent, effects)
    }

    @Test("one agreeing answer in the audit interval has its ranges listed here as well")
    func audit() throws {
        var (harness, job, started) = try ScanScenarioTests.slicedJob(listings: true, verify: true)
        defer { harness.cleanUp() }
        let (_, _, audited) = try Self.agreeDrawnForAudit(started, harness: &harness)
        #expect(Self.gaps(in: audited).map(\.directory) == [BytePath("sub")])
        #expect(harness.core.jobs[job]?.listingChecks == 0 && harness.core.jobs[job]?.scanComplete == false)
        #expect(try Self.listLocally(audited, job: job, harness: &harness).planned.isEmpty)
    }

    @Test("with a third principal, the audit of an agreeing answer is a listing check by its worker: agreeing, nothing is listed here; differing, the ranges are")
    func auditByAThirdPrincipal() throws {
        for differs in [false, true] {
            var (harness, job, started) = try ScanScenarioTests.slicedJob(listings: true, verify: true)
            defer { harness.cleanUp() }
            harness.register(c, slots: 4, storage: .shared, capabilities: ScanScenarioTests.capabilities + [WorkerHello.listingsCapability], pid: 3)
            let (sub, sent, audited) = try Self.agreeDrawnForAudit(started, harness: &harness)
            #expect(Self.gaps(in: audited).isEmpty, "the third principal audits, not the coordinator")
            let audit = try #require(Self.checks(in: audited).first)
            #expect(audit.peer != sub.peer && audit.peer != sent.peer)
            #expect(audit.check.scan == sent.check.scan && audit.check.checkID != sent.check.checkID)
            #expect(harness.core.jobs[job]?.listingChecks == 1 && harness.core.jobs[job]?.scanComplete == false)
            let truth = audit.check.scan.listing().report.listingDigest(key0: audit.check.key0, key1: audit.check.key1)
            let answered = harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: audit.check.checkID, digest: differs ? truth ^ 1 : truth)),
                                                         from: audit.peer, origin: nil), at: .milliseconds(3))
            #expect(harness.core.jobs[job]?.listingChecks == 0)
            // An audit is not audited again; a differing one has the ranges listed here.
            #expect(Self.checks(in: answered).isEmpty)
            #expect(Self.gaps(in: answered).map(\.directory) == (differs ? [BytePath("sub")] : []))
        }
    }

    @Test("a job without the check sends no listing check")
    func uncheckedJob() throws {
        var (harness, job, started) = try ScanScenarioTests.slicedJob(listings: true, verify: false)
        defer { harness.cleanUp() }
        let sub = try #require(ScanScenarioTests.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let listed = harness.handle(Self.scanned(sub.scan, from: sub.peer), at: .milliseconds(1))
        #expect(Self.checks(in: listed).isEmpty && Self.gaps(in: listed).isEmpty)
        #expect(harness.core.jobs[job]?.listingChecks == 0)
    }
}
