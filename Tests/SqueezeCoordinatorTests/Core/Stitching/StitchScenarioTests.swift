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

    /// A core with one four-slot shared-storage worker, `a`, and 8 KiB stitch segments. The
    /// worker writes a stitch's final header (`offsetTable`) unless told otherwise.
    static func sharedHarness(capabilities: [String]? = [WorkerHello.offsetTableCapability]) -> CoreHarness {
        var configuration = CoreHarness.configuration()
        configuration.stitchSegmentBytes = 8192
        var harness = CoreHarness(configuration)
        harness.register(a, slots: 4, storage: .shared, capabilities: capabilities)
        return harness
    }

    @Test("segments start where the last ended, carry the pieces that came in, and expect the CRC of stored bytes and trailer; the last writes the final header, checked on its own")
    func segments() throws {
        var harness = Self.sharedHarness()
        defer { harness.cleanUp() }
        // One file of three 4 KiB blocks: three items of a block each, by reference.
        let (job, started) = try harness.startJob(sizes: [3 * 4096], verify: true)
        let refs = started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }
        #expect(refs.map(\.itemID) == [0, 1, 2] && refs.allSatisfy { $0.blocks.count == 1 })

        // Each answer goes to the coordinator's own check (no other worker can verify), which
        // reads back each piece and reports its stored bytes' CRC.
        let (stitches, _) = try Self.answerAll(&harness, job: job, started: started)
        let at = Duration.milliseconds(10 * (refs.count + 1))
        // 8 KiB a segment: the first goes once two pieces (10,000 bytes) are in, the second, with the trailer, at the end.
        try #require(stitches.count == 2)
        let header = try #require(stitches.first?.header)
        #expect(header.count >= 10 && stitches[0].offset == UInt64(header.count))
        // Three blocks at level 6: the member has an offset table, written first with zero
        // lengths, and again by the last segment with the pieces' lengths (docs/format.md).
        var table = GzipHeader(fileName: Array("f0".utf8), modificationTime: 0, level: 6)
        table.offsetTable = GzipOffsetTable(spanBytes: 4096, spanLengths: [0, 0])
        #expect(Array(header[10...]) == Array(table.encoded()[10...]), "the first header is not the table's shape with zero lengths")
        table.offsetTable = GzipOffsetTable(spanBytes: 4096, spanLengths: [5000, 5000])
        #expect(stitches[0].finalHeader.isEmpty && stitches[1].finalHeader.count == header.count)
        #expect(Array(stitches[1].finalHeader[10...]) == Array(table.encoded()[10...]), "the final header is not the one the lengths make")
        #expect(Array(stitches[1].finalHeader[..<10]) == Array(header[..<10]))
        #expect(stitches[0].pieces.map(\.item) == [0, 1] && stitches[0].trailer.isEmpty)
        #expect(stitches[1].header.isEmpty && stitches[1].offset == UInt64(header.count) + 10_000)
        #expect(stitches[1].pieces.map(\.item) == [2] && stitches[1].trailer.count == 8)
        #expect(stitches[0].attempt == stitches[1].attempt)

        // The worker reports each segment written; each is checked against the expected CRC.
        let firstEnd = UInt64(header.count) + 10_000
        let done1 = harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: stitches[0].attempt, length: firstEnd)),
                                                  from: a, origin: nil), at: at + .milliseconds(1))
        let check1 = try #require(done1.compactMap { if case .check(.segment(let check)) = $0 { check } else { nil } }.first)
        // The header is written again at the end: the first segment's check starts after it.
        #expect(check1.range == UInt64(header.count)..<firstEnd)
        #expect(check1.expectedCRC == CRC32.checksum(Self.piece(0) + Self.piece(1)))

        let end = firstEnd + 5000 + 8
        let done2 = harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: stitches[0].attempt, length: end)),
                                                  from: a, origin: nil), at: at + .milliseconds(2))
        let checks2 = done2.compactMap { if case .check(.segment(let check)) = $0 { check } else { nil } }
        try #require(checks2.count == 2)
        let check2 = checks2[0], headerCheck = checks2[1]
        #expect(check2.range == firstEnd..<end)
        #expect(check2.expectedCRC == CRC32.checksum(Self.piece(2) + stitches[1].trailer))
        #expect(headerCheck.range == 0..<UInt64(header.count) && headerCheck.pieces.isEmpty)
        #expect(headerCheck.expectedCRC == CRC32.checksum(stitches[1].finalHeader))

        // Only once all three passed is the stitched file adopted, and the worker frees the pieces.
        let passed1 = harness.handle(.segmentChecked(check1, .matches), at: at + .milliseconds(3))
        #expect(passed1.writes.isEmpty)
        let passedHeader = harness.handle(.segmentChecked(headerCheck, .matches), at: at + .milliseconds(4))
        #expect(passedHeader.writes.isEmpty)
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

    /// Every piece of a job started with one block per item answered by the harness's worker
    /// `a` (5,000 bytes each; the coordinator's own check reads their stored CRCs), 10 ms
    /// apart from 10 ms on: the stitch requests and writer commands that went out.
    static func answerAll(_ harness: inout CoreHarness, job: JobID, started: [CoordinatorEffect]) throws -> (stitches: [StitchRequest], writes: [WriterCommand]) {
        let refs = started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }
        var stitches: [StitchRequest] = []
        var writes: [WriterCommand] = []
        var at = Duration.milliseconds(10)
        for work in refs {
            let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt,
                                   pieces: [PieceReport(crc: 0, rawLength: 4096, pieceLength: 5000)])
            let admitted = harness.handle(.workerMessage(.resultRef(answer), from: a, origin: nil), at: at)
            var request = try #require(admitted.compactMap { if case .check(.answer(let request)) = $0 { request } else { nil } }.first)
            request.recordStoredCRCs([CRC32.checksum(Self.piece(Int(work.itemID)))])
            at += .milliseconds(10)
            let checked = harness.handle(.answerChecked(request, nil), at: at)
            stitches += checked.sent.compactMap { if case .stitch(let stitch) = $0.message { stitch } else { nil } }
            writes += checked.writes.map(\.command)
        }
        return (stitches, writes)
    }

    @Test("a stitched header other than the coordinator's (a lying offset table) fails its check: the stitcher gets a strike and a writer joins the file")
    func aLyingTableIsRefused() throws {
        var harness = Self.sharedHarness()
        defer { harness.cleanUp() }
        let (job, started) = try harness.startJob(sizes: [2 * 4096], verify: true)
        let (stitches, _) = try Self.answerAll(&harness, job: job, started: started)
        // Two pieces of 5,000 bytes: one segment, first and last at once.
        let stitch = try #require(stitches.first)
        try #require(stitches.count == 1 && !stitch.finalHeader.isEmpty)
        let end = UInt64(stitch.header.count) + 10_000 + 8
        let done = harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: stitch.attempt, length: end)),
                                                 from: a, origin: nil), at: .seconds(1))
        let checks = done.compactMap { if case .check(.segment(let check)) = $0 { check } else { nil } }
        try #require(checks.count == 2)
        #expect(checks[0].range == UInt64(stitch.header.count)..<end)
        #expect(checks[1].range == 0..<UInt64(stitch.finalHeader.count))
        _ = harness.handle(.segmentChecked(checks[0], .matches), at: .seconds(1) + .milliseconds(1))
        let refused = harness.handle(.segmentChecked(checks[1], .differs("bytes 0..<31 have another CRC-32")), at: .seconds(1) + .milliseconds(2))
        let joined = refused.writes.filter { if case .piece = $0.command { true } else { false } }
        #expect(joined.count == 2, "both pieces go to the writer, which writes the table itself")
        #expect(!refused.writes.contains { if case .members = $0.command { true } else { false } }, "the stitched file was adopted")
        #expect(harness.core.verification.refusedStitches == 1)
        #expect(harness.core.jobs[job]?.stitching[0] == nil)
    }

    @Test("a file with an offset table is stitched only by a worker that writes the final header: with none, a writer joins it")
    func onlyAWorkerThatWritesTheTableStitches() throws {
        var harness = Self.sharedHarness(capabilities: nil)
        defer { harness.cleanUp() }
        let (job, started) = try harness.startJob(sizes: [2 * 4096], verify: true)
        let (stitches, writes) = try Self.answerAll(&harness, job: job, started: started)
        #expect(stitches.isEmpty)
        #expect(writes.filter { if case .piece = $0 { true } else { false } }.count == 2)
        // A file of one block has no table (no FEXTRA), as the drop-in decides.
        var one = Self.sharedHarness(capabilities: nil)
        defer { one.cleanUp() }
        let (_, single) = try one.startJob(sizes: [4096])
        let refs = single.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }
        #expect(refs.count == 1 && refs[0].blocks.first?.header.map { $0.count >= 10 && $0[3] & 0x04 == 0 } == true)
    }
}
