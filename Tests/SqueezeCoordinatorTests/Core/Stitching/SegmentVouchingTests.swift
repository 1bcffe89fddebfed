import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// Who reads a stitched segment back: a worker independent of everyone its expected CRC rests
/// on. A piece's stored CRC that its compressor and its verifier (two principals) agree on
/// rests on neither alone, so with two principals the segment still goes to a worker.
@Suite("CoordinatorCore: who checks a stitched segment")
struct SegmentVouchingTests {
    static let capabilities = [WorkerHello.offsetTableCapability, WorkerHello.verifyCapability, WorkerHello.verifyRangeCapability]
    /// The CRC-32 every compressor claims for its block's data (and every verifier decodes).
    static let claim: UInt32 = 0x5EED

    /// A core with shared-storage workers `a` and `b` (and `c` when `third`), four slots each,
    /// independent principals, all able to verify and stitch; 8 KiB segments.
    static func harness(third: Bool = false, rolls: UInt64) -> CoreHarness {
        var configuration = CoreHarness.configuration()
        configuration.stitchSegmentBytes = 8192
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: rolls))
        let peers: [PeerID] = third ? [a, b, c] : [a, b]
        for (number, peer) in peers.enumerated() {
            harness.register(peer, slots: 4, storage: .shared, capabilities: capabilities, pid: Int32(number + 1))
        }
        return harness
    }

    /// What was sent and to whom, and the segment checks the coordinator kept for itself.
    struct Outcome {
        var stitcher: PeerID?
        var segmentVerifies: [(request: VerifyRequest, peer: PeerID)] = []
        var localSegmentChecks: [SegmentCheck] = []
        var effects: [CoordinatorEffect] = []
    }

    /// Answers everything a checked three-block file (one item a block) sends out until only
    /// segment checks are left: each item by the worker it went to, which reports
    /// `written(item)` as the stored CRC of its piece (`StitchScenarioTests.piece`); each
    /// verify of pieces with the claim and the piece's real stored CRC; each stitch segment
    /// written where the coordinator expects it to end.
    static func drive(_ harness: inout CoreHarness, job: JobID, started: [CoordinatorEffect], written: (UInt64) -> UInt32?) -> Outcome {
        var outcome = Outcome()
        var pending = started
        var at = Duration.milliseconds(10)
        while !pending.isEmpty {
            let effects = pending
            pending = []
            outcome.effects += effects
            for effect in effects {
                if case .check(.segment(let check)) = effect { outcome.localSegmentChecks.append(check) }
            }
            for (message, peer) in effects.sent {
                at += .milliseconds(1)
                switch message {
                case .workRef(let work):
                    let piece = StitchScenarioTests.piece(Int(work.itemID))
                    let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt, pieces: [
                        PieceReport(crc: claim, rawLength: 4096, pieceLength: UInt64(piece.count), storedCRC: written(work.itemID)),
                    ])
                    pending += harness.handle(.workerMessage(.resultRef(answer), from: peer, origin: nil), at: at)
                case .verify(let request):
                    if case .range = request.blocks.first {
                        outcome.segmentVerifies.append((request, peer))
                        continue
                    }
                    let findings = request.blocks.map { _ in
                        VerifyFinding(outcome: .decoded, crc: claim, sourceCRC: claim,
                                      storedCRC: CRC32.checksum(StitchScenarioTests.piece(Int(request.itemID))))
                    }
                    pending += harness.handle(.workerMessage(.verified(VerifyReport(checkID: request.checkID, findings: findings)), from: peer, origin: nil), at: at)
                case .stitch(let stitch):
                    outcome.stitcher = peer
                    let end = stitch.offset + stitch.pieces.reduce(0) { $0 + $1.length } + UInt64(stitch.trailer.count)
                    pending += harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: stitch.file, attempt: stitch.attempt, length: end)),
                                                             from: peer, origin: nil), at: at)
                default:
                    continue
                }
            }
        }
        return outcome
    }

    /// What an honest compressor reports writing for item `item`'s piece.
    static func trueCRC(_ item: UInt64) -> UInt32? {
        CRC32.checksum(StitchScenarioTests.piece(Int(item)))
    }

    /// The segment checks (range verifies) sent in `effects`, and to whom.
    static func rangeVerifies(in effects: [CoordinatorEffect]) -> [(request: VerifyRequest, peer: PeerID)] {
        effects.sent.compactMap { sent in
            if case .verify(let request) = sent.message, case .range = request.blocks.first { (request, sent.peer) } else { nil }
        }
    }

    /// Answers a segment verify as a reader of the bytes would: the CRC the segment has.
    static func answer(_ verify: (request: VerifyRequest, peer: PeerID), in harness: inout CoreHarness, at: Duration, lying: Bool = false) -> [CoordinatorEffect] {
        let expected = harness.core.verification.segments[verify.request.checkID]?.check.expectedCRC ?? 0
        let finding = VerifyFinding(outcome: .decoded, crc: lying ? expected ^ 1 : expected, storedCRC: 0)
        return harness.handle(.workerMessage(.verified(VerifyReport(checkID: verify.request.checkID, findings: [finding])), from: verify.peer, origin: nil), at: at)
    }

    @Test("two principals: the pieces' stored CRCs confirmed by their compressors, every segment is read back by the worker that did not stitch, none here")
    func confirmedPiecesNeedOnlyANonStitcher() throws {
        var harness = Self.harness(rolls: 1)
        defer { harness.cleanUp() }
        let (job, started) = try harness.startJob(sizes: [3 * 4096], verify: true)
        var outcome = Self.drive(&harness, job: job, started: started, written: Self.trueCRC)
        let stitcher = try #require(outcome.stitcher)
        // The segments and the final header's check.
        #expect(outcome.segmentVerifies.count >= 2)
        #expect(outcome.segmentVerifies.allSatisfy { $0.peer != stitcher })
        #expect(outcome.localSegmentChecks.isEmpty && harness.core.verification.segmentsCheckedLocally == 0)
        // Their agreeing answers publish the stitched file.
        var adopted = false
        for (position, verify) in outcome.segmentVerifies.enumerated() {
            let effects = Self.answer(verify, in: &harness, at: .seconds(1) + .milliseconds(position))
            adopted = adopted || effects.writes.contains { if case .members = $0.command { true } else { false } }
            outcome.effects += effects
        }
        #expect(adopted)
        #expect(harness.core.verification.segmentsCheckedLocally == 0)
    }

    @Test("two principals: a compressor that reports no stored CRC, or another than its verifier read, leaves a segment whose pieces both principals checked to the coordinator")
    func unconfirmedPiecesAreReadHere() throws {
        for written in [{ (_: UInt64) -> UInt32? in nil }, { (item: UInt64) -> UInt32? in Self.trueCRC(item).map { $0 ^ 1 } }] {
            var harness = Self.harness(rolls: 1)
            defer { harness.cleanUp() }
            let (job, started) = try harness.startJob(sizes: [3 * 4096], verify: true)
            let outcome = Self.drive(&harness, job: job, started: started, written: written)
            var checks: [(check: SegmentCheck, verifier: PeerID?)] = outcome.localSegmentChecks.map { ($0, nil) }
            for verify in outcome.segmentVerifies {
                if let pending = harness.core.verification.segments[verify.request.checkID] { checks.append((pending.check, verify.peer)) }
            }
            try #require(checks.count >= 2)
            // Each check goes to a worker that is neither the stitcher nor a verifier of its
            // pieces; a segment whose pieces both principals checked is read here.
            for (check, verifier) in checks {
                let vouchers = Set(check.pieces.compactMap(\.storedCRCReporter) + [check.stitcher])
                if vouchers.isSuperset(of: [a, b]) {
                    #expect(verifier == nil)
                } else {
                    #expect(verifier.map { !vouchers.contains($0) } == true)
                }
            }
            #expect(checks.contains { $0.verifier == nil && !$0.check.pieces.isEmpty })
        }
    }

    @Test("a drawn audit of a segment goes to a third principal; its disagreement is confirmed here and quarantines stitcher and verifier")
    func segmentAuditsGoToAThirdPrincipal() throws {
        var harness = Self.harness(third: true, rolls: 0)
        defer { harness.cleanUp() }
        let (job, started) = try harness.startJob(sizes: [3 * 4096], verify: true)
        let outcome = Self.drive(&harness, job: job, started: started, written: Self.trueCRC)
        let stitcher = try #require(outcome.stitcher)
        let first = try #require(outcome.segmentVerifies.first)
        #expect(first.peer != stitcher && outcome.localSegmentChecks.isEmpty)
        let audits = harness.core.verification.auditsByWorkers
        // The verifier says it matches: every good word is audited (rolls of 0), by the one left.
        let audited = Self.answer(first, in: &harness, at: .seconds(1))
        let audit = try #require(Self.rangeVerifies(in: audited).first)
        #expect(audit.peer != stitcher && audit.peer != first.peer)
        #expect(harness.core.verification.auditsByWorkers == audits + 1)
        #expect(!audited.contains { if case .check(.segment) = $0 { true } else { false } })
        // The auditor says otherwise: the coordinator reads it; bad, both vouchers colluded.
        let contested = Self.answer(audit, in: &harness, at: .seconds(2), lying: true)
        let local = try #require(contested.compactMap { if case .check(.segment(let check)) = $0 { check } else { nil } }.first)
        #expect(local.verdict == .auditContested(verifier: first.peer, auditor: audit.peer))
        harness.handle(.segmentChecked(local, .differs("bytes differ")), at: .seconds(3))
        let quarantine = harness.core.verification.quarantine
        #expect(quarantine.isQuarantined(harness.core.verification.identity(of: stitcher)))
        #expect(quarantine.isQuarantined(harness.core.verification.identity(of: first.peer)))
        #expect(!quarantine.isQuarantined(harness.core.verification.identity(of: audit.peer)))
        #expect(harness.core.verification.collusionsCaught == 1)
    }

    @Test("an auditor that calls a good segment bad gets the strike, and the segment passes")
    func aLyingSegmentAuditor() throws {
        var harness = Self.harness(third: true, rolls: 0)
        defer { harness.cleanUp() }
        let (job, started) = try harness.startJob(sizes: [3 * 4096], verify: true)
        let outcome = Self.drive(&harness, job: job, started: started, written: Self.trueCRC)
        let first = try #require(outcome.segmentVerifies.first)
        let audited = Self.answer(first, in: &harness, at: .seconds(1))
        let audit = try #require(Self.rangeVerifies(in: audited).first)
        let contested = Self.answer(audit, in: &harness, at: .seconds(2), lying: true)
        let local = try #require(contested.compactMap { if case .check(.segment(let check)) = $0 { check } else { nil } }.first)
        harness.handle(.segmentChecked(local, .matches), at: .seconds(3))
        #expect(harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: audit.peer)) == 1)
        #expect(harness.core.verification.collusionsCaught == 0)
        #expect(harness.core.jobs[job]?.stitching[0]?.checking.contains(local.id) == false)
    }
}
