import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// What becomes of a stitch when its worker fails it, leaves, or stalls, through the core.
@Suite("CoordinatorCore: stitches that go wrong")
struct StitchRecoveryTests {
    /// Two shared-storage workers (both write a stitch's final header), 8 KiB segments, and a
    /// two-block file whose two pieces are in: returns the job and the first stitch request
    /// (to the least busy worker).
    func stitching(_ harness: inout CoreHarness) throws -> (JobID, StitchRequest, PeerID) {
        harness.register(b, slots: 4, storage: .shared, capabilities: [WorkerHello.offsetTableCapability])
        let (job, started) = try harness.startJob(sizes: [2 * 4096])
        var stitch: (StitchRequest, PeerID)?
        for (work, peer) in started.sent.compactMap({ if case .workRef(let work) = $0.message { (work, $0.peer) } else { nil } }) {
            let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt,
                                   pieces: [PieceReport(crc: 0, rawLength: 4096, pieceLength: 5000)])
            let effects = harness.handle(.workerMessage(.resultRef(answer), from: peer, origin: nil), at: .milliseconds(10))
            stitch = stitch ?? effects.sent.compactMap { if case .stitch(let request) = $0.message { (request, $0.peer) } else { nil } }.first
        }
        let (request, stitcher) = try #require(stitch)
        return (job, request, stitcher)
    }

    @Test("a worker that cannot join the pieces says so; a writer joins them instead")
    func stitchFailure() throws {
        var harness = StitchScenarioTests.sharedHarness()
        defer { harness.cleanUp() }
        let (job, request, stitcher) = try stitching(&harness)
        let failed = harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: request.attempt, length: 0, failure: "ENOSPC")),
                                                   from: stitcher, origin: nil), at: .milliseconds(20))
        #expect(failed.writes.filter { if case .piece = $0.command { true } else { false } }.count == 2)
        #expect(harness.core.malformedMessages == 0)
    }

    @Test("a stitcher that leaves mid-stitch: the stitch starts again on the other worker, as a new attempt, from the first piece")
    func stitcherLeaves() throws {
        var harness = StitchScenarioTests.sharedHarness()
        defer { harness.cleanUp() }
        let (job, request, stitcher) = try stitching(&harness)
        let other: PeerID = stitcher == a ? b : a
        let left = harness.handle(.workerMessage(.goodbye, from: stitcher, origin: nil), at: .milliseconds(20))
        let again = try #require(left.sent.compactMap { if case .stitch(let request) = $0.message { (request, $0.peer) } else { nil } }.first)
        #expect(again.1 == other)
        #expect(again.0.attempt != request.attempt && again.0.offset == request.offset && !again.0.header.isEmpty)
        // The old attempt's late answer is late, not adopted.
        harness.handle(.workerMessage(.stitched(StitchResult(jobID: job.value, file: 0, attempt: request.attempt, length: 99)), from: stitcher, origin: nil),
                       at: .milliseconds(30))
        #expect(harness.core.lateResults == 1)
    }

    @Test("a stitch whose segment is unanswered past its allowance starts again elsewhere")
    func stalledStitch() throws {
        var harness = StitchScenarioTests.sharedHarness()
        defer { harness.cleanUp() }
        let (_, request, stitcher) = try stitching(&harness)
        let allowance = harness.core.configuration.itemDeadline
        harness.handle(.tick, at: .milliseconds(20))
        var restarted: (StitchRequest, PeerID)?
        var second = 1
        while restarted == nil, second <= Int(allowance.components.seconds) + 3 {
            for peer in [a, b] { harness.handle(.workerMessage(.heartbeat, from: peer, origin: nil), at: .seconds(second)) }
            let effects = harness.handle(.tick, at: .seconds(second))
            restarted = effects.sent.compactMap { if case .stitch(let request) = $0.message { (request, $0.peer) } else { nil } }.first
            second += 1
        }
        let (again, peer) = try #require(restarted)
        #expect(Duration.seconds(second - 1) > allowance, "not before the allowance")
        #expect(peer != stitcher && again.attempt != request.attempt)
    }
}
