import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// A multi-block file on shared storage, through the core: its pieces are joined by a worker
/// in segments as they come in, each segment checked against the CRC the core expects.
@Suite("CoordinatorCore: stitching a file in segments")
struct StitchScenarioTests {
    /// What the worker "wrote" for block `index`: made-up compressed bytes, 5,000 of them.
    static func piece(_ index: Int) -> [UInt8] {
        (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &* 13) }
    }

    /// A core with one four-slot shared-storage worker, `a`, and 8 KiB stitch segments.
    static func sharedHarness() -> CoreHarness {
        var configuration = CoreHarness.configuration()
        configuration.stitchSegmentBytes = 8192
        var harness = CoreHarness(configuration)
        harness.register(a, slots: 4, storage: .shared)
        return harness
    }

    @Test("segments start where the last ended, carry the pieces that came in, and expect the CRC of header, stored bytes and trailer")
    func segments() throws {
        var harness = Self.sharedHarness()
        defer { harness.cleanUp() }
        // One file of three 4 KiB blocks: three items of a block each, by reference.
        let (job, started) = try harness.startJob(sizes: [3 * 4096], verify: true)
        let refs = started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }
        #expect(refs.map(\.itemID) == [0, 1, 2] && refs.allSatisfy { $0.blocks.count == 1 })

        // Each answer goes to the coordinator's own check (no other worker can verify), which
        // reads back each piece and reports its stored bytes' CRC.
        var stitches: [StitchRequest] = []
        var at = Duration.milliseconds(10)
        for work in refs {
            let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt,
                                   pieces: [PieceReport(crc: 0, rawLength: 4096, pieceLength: 5000)])
            let admitted = harness.handle(.workerMessage(.resultRef(answer), from: a, origin: nil), at: at)
            let checks = admitted.compactMap { if case .check(.answer(let request)) = $0 { request } else { nil } }
            var request = try #require(checks.first)
            request.recordStoredCRCs([CRC32.checksum(Self.piece(Int(work.itemID)))])
            at += .milliseconds(10)
            let checked = harness.handle(.answerChecked(request, nil), at: at)
            stitches += checked.sent.compactMap { if case .stitch(let stitch) = $0.message { stitch } else { nil } }
        }
        // 8 KiB a segment: the first goes once two pieces (10,000 bytes) are in, the second, with the trailer, at the end.
        try #require(stitches.count == 2)
        let header = try #require(stitches.first?.header)
        #expect(header.count >= 10 && stitches[0].offset == UInt64(header.count))
        #expect(stitches[0].pieces.map(\.item) == [0, 1] && stitches[0].trailer.isEmpty)
        #expect(stitches[1].header.isEmpty && stitches[1].offset == UInt64(header.count) + 10_000)
        #expect(stitches[1].pieces.map(\.item) == [2] && stitches[1].trailer.count == 8)
        #expect(stitches[0].attempt == stitches[1].attempt)

        // The worker reports each segment written; each is checked against the expected CRC.
        let firstEnd = UInt64(header.count) + 10_000
        let done1 = harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: stitches[0].attempt, length: firstEnd)),
                                                  from: a, origin: nil), at: at + .milliseconds(1))
        let check1 = try #require(done1.compactMap { if case .check(.segment(let check)) = $0 { check } else { nil } }.first)
        #expect(check1.range == 0..<firstEnd)
        #expect(check1.expectedCRC == CRC32.checksum(header + Self.piece(0) + Self.piece(1)))

        let end = firstEnd + 5000 + 8
        let done2 = harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: stitches[0].attempt, length: end)),
                                                  from: a, origin: nil), at: at + .milliseconds(2))
        let check2 = try #require(done2.compactMap { if case .check(.segment(let check)) = $0 { check } else { nil } }.first)
        #expect(check2.range == firstEnd..<end)
        #expect(check2.expectedCRC == CRC32.checksum(Self.piece(2) + stitches[1].trailer))

        // Only once both passed is the stitched file adopted, and the worker frees the pieces.
        let passed1 = harness.handle(.segmentChecked(check1, .matches), at: at + .milliseconds(3))
        #expect(passed1.writes.isEmpty)
        let passed2 = harness.handle(.segmentChecked(check2, .matches), at: at + .milliseconds(4))
        #expect(passed2.writes.contains { if case .members(let members) = $0.command { members.count == 1 && members[0].piece.length == end } else { false } })
        #expect(passed2.sent.contains { if case .discard(let discard) = $0.message { $0.peer == a && discard.pieces.count == 3 } else { false } })
        #expect(harness.core.jobs[job]?.freeing[a] == 1)
    }

    @Test("a stitched length other than where the segment ends is refused, and a writer joins the file instead")
    func wrongLength() throws {
        var harness = Self.sharedHarness()
        defer { harness.cleanUp() }
        let (job, started) = try harness.startJob(sizes: [2 * 4096])
        let refs = started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }
        var stitch: StitchRequest?
        for work in refs {
            let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt,
                                   pieces: [PieceReport(crc: 0, rawLength: 4096, pieceLength: 5000)])
            let effects = harness.handle(.workerMessage(.resultRef(answer), from: a, origin: nil), at: .milliseconds(10))
            stitch = stitch ?? effects.sent.compactMap { if case .stitch(let request) = $0.message { request } else { nil } }.first
        }
        let request = try #require(stitch)
        let refused = harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: request.attempt, length: 7)),
                                                    from: a, origin: nil), at: .milliseconds(20))
        #expect(harness.core.malformedMessages == 1)
        let joined = refused.writes.filter { if case .piece = $0.command { true } else { false } }
        #expect(joined.count == 2, "both pieces go to the writer that owns the output")
        #expect(harness.core.jobs[job]?.stitching[0] == nil)
    }
}
