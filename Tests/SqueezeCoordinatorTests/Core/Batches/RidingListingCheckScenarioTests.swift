import Foundation
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// A listing that named files to compress is checked with their batch: its check waits for the
/// batch's answer and rides in the batch's `verifyBatch` to a verifier that announced
/// `batchListings`, whose `verified` answers both. Without such a verifier, or when the batch's
/// answer will not come, it goes out alone as a `checkListing`.
@Suite("CoordinatorCore: listing checks with their batch")
struct RidingListingCheckScenarioTests {
    /// A checked sliced job whose folder `sub` holds `x` and `y` (10 bytes each), listed by its
    /// worker with the pieces to follow; the harness, the job, the scan and its worker, and the
    /// effects of the listing.
    private static func listed(
        batchListings: Bool = true, metrics: CountingMetrics = CountingMetrics()
    ) throws -> (harness: CoreHarness, job: JobID, sub: (scan: ScanAssignment, peer: PeerID), effects: [CoordinatorEffect]) {
        var (harness, job, started) = try ScanScenarioTests.slicedJob(listings: true, batchListings: batchListings, verify: true, metrics: metrics)
        try Data(repeating: 2, count: 10).write(to: URL(fileURLWithPath: harness.lastFolder + "/src/sub/y"))
        let sub = try #require(ScanScenarioTests.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        var report = sub.scan.listing().report
        report.result = nil
        let effects = harness.handle(.workerMessage(.scanned(report), from: sub.peer, origin: nil), at: .milliseconds(1))
        return (harness, job, sub, effects)
    }

    /// The scanner's pieces of `scan`'s two files.
    private static func pieces(of scan: ScanAssignment, from peer: PeerID) -> CoordinatorEvent {
        .workerMessage(.resultRef(RefResult(
            jobID: scan.jobID, itemID: scan.itemID, attempt: scan.attempt,
            pieces: [PieceReport(crc: 7, rawLength: 10, pieceLength: 100), PieceReport(crc: 7, rawLength: 10, pieceLength: 100)])),
                       from: peer, origin: nil)
    }

    private static func batchChecks(in effects: [CoordinatorEffect]) -> [(check: BatchCheck, peer: PeerID)] {
        effects.sent.compactMap { if case .verifyBatch(let check) = $0.message { (check, $0.peer) } else { nil } }
    }

    private static func listingChecks(in effects: [CoordinatorEffect]) -> [(check: ListingCheck, peer: PeerID)] {
        effects.sent.compactMap { if case .checkListing(let check) = $0.message { (check, $0.peer) } else { nil } }
    }

    private static func gaps(in effects: [CoordinatorEffect]) -> [ScanSlice] {
        effects.compactMap { if case .scan(let request) = $0, request.slice?.gap != nil { request.slice } else { nil } }
    }

    /// A good verdict on `check`'s files, with `listing` as the listing check's answer.
    private static func verified(_ check: BatchCheck, listing: ListingChecked?, from peer: PeerID) -> CoordinatorEvent {
        var report = VerifyReport(checkID: check.checkID, findings: check.files.map { _ in VerifyFinding(outcome: .decoded, crc: 7, sourceCRC: 7) })
        report.listing = listing
        return .workerMessage(.verified(report), from: peer, origin: nil)
    }

    @Test("the listing's check waits for the batch's answer and rides in its verifyBatch; the verified's digest settles both: the batch is granted, nothing is listed here")
    func ridesAndAgrees() throws {
        let metrics = CountingMetrics()
        var (harness, job, sub, listed) = try Self.listed(metrics: metrics)
        defer { harness.cleanUp() }
        #expect(Self.listingChecks(in: listed).isEmpty, "no checkListing of its own")
        #expect(harness.core.jobs[job]?.listingChecks == 1 && harness.core.jobs[job]?.scanComplete == false, "counted from the scanned on")
        // Ticks while the batch compresses leave the check waiting for it.
        for peer in [a, b] { harness.handle(.workerMessage(.heartbeat, from: peer, origin: nil), at: .seconds(2)) }
        #expect(Self.listingChecks(in: harness.handle(.tick, at: .seconds(2))).isEmpty)
        #expect(harness.core.verification.deferredListings.count == 1)

        let answered = harness.handle(Self.pieces(of: sub.scan, from: sub.peer), at: .seconds(3))
        #expect(Self.listingChecks(in: answered).isEmpty)
        let sent = try #require(Self.batchChecks(in: answered).first)
        #expect(sent.peer != sub.peer)
        let listing = try #require(sent.check.listing, "the listing check rides in the batch's check")
        var expected = sub.scan
        expected.attempt = 0
        expected.syncPieces = false
        #expect(listing.scan == expected && listing.checkID != sent.check.checkID)

        let truth = listing.scan.listing().report.listingDigest(key0: listing.key0, key1: listing.key1)
        let settled = harness.handle(Self.verified(sent.check, listing: ListingChecked(checkID: listing.checkID, digest: truth), from: sent.peer),
                                     at: .seconds(4))
        #expect(harness.core.jobs[job]?.listingChecks == 0)
        #expect(Self.gaps(in: settled).isEmpty)
        #expect(settled.sent.contains { if case .publish = $0.message { true } else { false } }, "the batch is granted")
        #expect(metrics.total("squeeze_listing_checks_total") == 1 && metrics.total("squeeze_listing_differences_total") == 0)
        #expect(metrics.total("squeeze_listing_checks_total", [("by", "batch")]) == 1)
    }

    @Test("a differing digest, or a verified with none, has the coordinator list the slice's ranges; the batch is still granted",
          arguments: [true, false])
    func differsOrMissing(differs: Bool) throws {
        var (harness, job, sub, _) = try Self.listed()
        defer { harness.cleanUp() }
        let sent = try #require(Self.batchChecks(in: harness.handle(Self.pieces(of: sub.scan, from: sub.peer), at: .milliseconds(2))).first)
        let listing = try #require(sent.check.listing)
        let truth = listing.scan.listing().report.listingDigest(key0: listing.key0, key1: listing.key1)
        let answer = differs ? ListingChecked(checkID: listing.checkID, digest: truth ^ 1) : nil
        let effects = harness.handle(Self.verified(sent.check, listing: answer, from: sent.peer), at: .milliseconds(3))
        #expect(Self.gaps(in: effects).map(\.directory) == [BytePath("sub")])
        #expect(harness.core.jobs[job]?.listingChecks == 0 && harness.core.jobs[job]?.scanComplete == false, "the range is still to list")
        #expect(effects.sent.contains { if case .publish = $0.message { true } else { false } })
    }

    @Test("an answer to the listing from anyone but the batch's verifier is not heard")
    func onlyTheVerifierAnswers() throws {
        var (harness, job, sub, _) = try Self.listed()
        defer { harness.cleanUp() }
        let sent = try #require(Self.batchChecks(in: harness.handle(Self.pieces(of: sub.scan, from: sub.peer), at: .milliseconds(2))).first)
        let listing = try #require(sent.check.listing)
        let truth = listing.scan.listing().report.listingDigest(key0: listing.key0, key1: listing.key1)
        harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: listing.checkID, digest: truth)), from: sub.peer, origin: nil),
                       at: .milliseconds(3))
        harness.handle(Self.verified(sent.check, listing: ListingChecked(checkID: listing.checkID, digest: truth), from: sub.peer),
                       at: .milliseconds(3))
        #expect(harness.core.jobs[job]?.listingChecks == 1, "the scanner cannot settle its own listing")
    }

    @Test("a verifier that does not announce batchListings gets the listing check on its own, when the batch's answer comes")
    func verifierWithoutTheCapability() throws {
        var (harness, job, sub, listed) = try Self.listed(batchListings: false)
        defer { harness.cleanUp() }
        #expect(Self.listingChecks(in: listed).isEmpty)
        let answered = harness.handle(Self.pieces(of: sub.scan, from: sub.peer), at: .milliseconds(2))
        let batch = try #require(Self.batchChecks(in: answered).first)
        #expect(batch.check.listing == nil)
        let alone = try #require(Self.listingChecks(in: answered).first)
        #expect(alone.peer != sub.peer)
        #expect(harness.core.jobs[job]?.listingChecks == 1)
        let truth = alone.check.scan.listing().report.listingDigest(key0: alone.check.key0, key1: alone.check.key1)
        harness.handle(.workerMessage(.listingChecked(ListingChecked(checkID: alone.check.checkID, digest: truth)), from: alone.peer, origin: nil),
                       at: .milliseconds(3))
        #expect(harness.core.jobs[job]?.listingChecks == 0)
    }

    @Test("a scanner that leaves before its batch's answer: its listing is not taken on its word; the coordinator lists the slice's ranges")
    func scannerLeaves() throws {
        var (harness, job, sub, _) = try Self.listed()
        defer { harness.cleanUp() }
        let gone = harness.handle(.workerMessage(.goodbye, from: sub.peer, origin: nil), at: .milliseconds(2))
        // With the scanner gone no principal is known to check against: listed here, by name.
        #expect(Self.gaps(in: gone).map(\.directory) == [BytePath("sub")])
        #expect(harness.core.jobs[job]?.listingChecks == 0 && harness.core.jobs[job]?.scanComplete == false)
        #expect(harness.core.verification.deferredListings.isEmpty)
    }

    @Test("a batch answer that never comes: at the verify deadline the listing check goes out alone")
    func answerNeverComes() throws {
        var (harness, job, sub, _) = try Self.listed()
        defer { harness.cleanUp() }
        let deadline = harness.core.configuration.verifyDeadline
        for peer in [a, b] { harness.handle(.workerMessage(.heartbeat, from: peer, origin: nil), at: deadline - .milliseconds(100)) }
        let early = harness.handle(.tick, at: deadline - .milliseconds(100))
        #expect(Self.listingChecks(in: early).isEmpty, "still waiting for the batch")
        for peer in [a, b] { harness.handle(.workerMessage(.heartbeat, from: peer, origin: nil), at: deadline + .milliseconds(500)) }
        let late = harness.handle(.tick, at: deadline + .seconds(1))
        let alone = try #require(Self.listingChecks(in: late).first)
        #expect(alone.peer != sub.peer)
        #expect(harness.core.jobs[job]?.listingChecks == 1)
    }
}
