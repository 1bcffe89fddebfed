import SqueezeGzip
import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// Which answers count, and where they go, through the whole core.
@Suite("CoordinatorCore: result intake")
struct ResultIntakeTests {
    @Test("a result for an item the job never planned is malformed, not late")
    func unknownItem() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096])
        let answer = WorkResult(jobID: job.value, itemID: 999, blocks: [ResultBlock(crc: 0, rawLength: 4096, bytes: ZMQFrame([3, 0]))])
        harness.handle(.workerMessage(.result(answer), from: a, origin: nil), at: .milliseconds(1))
        #expect(harness.core.malformedMessages == 1 && harness.core.lateResults == 0)
    }

    @Test("a result with another number of blocks than were sent is refused and the item goes elsewhere")
    func blockCount() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let item = try harness.oneItemHeldByA()
        let twice = WorkResult(jobID: item.job.value, itemID: item.item.value, blocks: Array(repeating: ResultBlock(crc: 0, rawLength: 4096, bytes: ZMQFrame([3, 0])), count: 2))
        let refused = harness.handle(.workerMessage(.result(twice), from: a, origin: nil), at: .milliseconds(2))
        #expect(harness.core.malformedMessages == 1)
        #expect(refused.dispatches.map(\.routingID) == [b])
        #expect(refused.writes.isEmpty)
    }

    @Test("a shared-storage answer for another attempt than the worker was given is refused")
    func wrongAttempt() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, storage: .shared)
        let (job, started) = try harness.startJob(sizes: [4096])
        let work = try #require(started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }.first)
        let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt + 1,
                               pieces: [PieceReport(crc: 0, rawLength: 4096, pieceLength: 100)])
        harness.register(b, storage: .shared, at: .milliseconds(1))
        let refused = harness.handle(.workerMessage(.resultRef(answer), from: a, origin: nil), at: .milliseconds(2))
        #expect(harness.core.malformedMessages == 1)
        #expect(refused.writes.isEmpty)
        // It goes to the other worker, as a new attempt.
        let again = refused.sent.compactMap { if case .workRef(let work) = $0.message { (work, $0.peer) } else { nil } }
        #expect(again.map(\.1) == [b] && again.allSatisfy { $0.0.itemID == work.itemID && $0.0.attempt != work.attempt })
    }

    @Test("a checked job's answer goes to a check, not to a writer; with a second worker able to verify, the check goes to it")
    func checkedAnswers() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: [4096, 4096], verify: true)
        let item = try #require(started.dispatches.first)
        #expect(item.verify)
        // Alone, the compressor cannot check itself: the coordinator does.
        let alone = harness.handle(.workerMessage(CoreHarness.answer(item), from: a, origin: nil), at: .milliseconds(1))
        #expect(alone.writes.isEmpty)
        #expect(alone.contains { if case .check(.answer(let request)) = $0 { request.item.item == item.item } else { false } })
        // With a verifier registered (its sources recorded first, as the reader does), the next answer's check goes to it.
        let verifier = WorkerHello(workerID: "v", host: "h", slots: 1, pid: 3, engines: CompressionEngine.allCases.map(\.rawValue),
                                   storage: .remote, capabilities: [WorkerHello.verifyCapability])
        harness.handle(.workerMessage(.workerReady(verifier), from: c, origin: CoreHarness.origin(of: c)), at: .milliseconds(2))
        let second = try #require(started.dispatches.dropFirst().first)
        let bytes = ZMQFrame([3, 0])
        harness.handle(.read(second, sources: [second.blocks[0].ref: SourceBlock(crc: 7, dictionary: [])]), at: .milliseconds(3))
        let answer = WorkResult(jobID: second.job.value, itemID: second.item.value, blocks: [ResultBlock(crc: 7, rawLength: 4096, bytes: bytes)])
        let sent = harness.handle(.workerMessage(.result(answer), from: a, origin: nil), at: .milliseconds(4))
        let held = harness.core.verification.outgoing.isEmpty == false
        let verifies = sent.sent.filter { if case .verify = $0.message { $0.peer == c } else { false } }
        #expect(held || verifies.count == 1, "the check waits for the verifier's next dispatch or goes at once")
        #expect(harness.core.verification.pending.count == 1 && sent.writes.isEmpty)
    }

    @Test("an answer whose claimed CRC differs from the one read at dispatch is refused without decoding")
    func claimedCRCDiffers() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        harness.register(b)
        let (_, started) = try harness.startJob(sizes: [4096], verify: true)
        let item = try #require(started.dispatches.first)
        harness.handle(.read(item, sources: [item.blocks[0].ref: SourceBlock(crc: 7, dictionary: [])]), at: .milliseconds(1))
        let answer = WorkResult(jobID: item.job.value, itemID: item.item.value, blocks: [ResultBlock(crc: 8, rawLength: 4096, bytes: ZMQFrame([3, 0]))])
        let refused = harness.handle(.workerMessage(.result(answer), from: item.routingID, origin: nil), at: .milliseconds(2))
        #expect(harness.core.verification.refusedResults == 1)
        #expect(refused.dispatches.map(\.item) == [item.item] && refused.dispatches.allSatisfy { $0.routingID != item.routingID })
        #expect(!refused.contains { if case .check = $0 { true } else { false } })
    }

    @Test("answers whose lengths are not the plan's are strikes: the third quarantines the worker, which gets no more items")
    func wrongLengthsQuarantine() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        harness.register(b)
        let (_, started) = try harness.startJob(sizes: Array(repeating: 4096, count: 12))
        let heldByA = started.dispatches.filter { $0.routingID == a }
        #expect(heldByA.count >= 3)
        var at = Duration.milliseconds(1)
        for item in heldByA.prefix(3) {
            harness.handle(.workerMessage(CoreHarness.answer(item, lengthening: 1), from: a, origin: nil), at: at)
            at += .milliseconds(1)
        }
        #expect(harness.core.verification.quarantine.isQuarantined(a.bytes))
        #expect(harness.core.verification.quarantine.strikes(of: a.bytes) == 3)
        // b answers everything it holds; what comes back goes to b, never to a.
        var later: [Dispatch] = []
        for item in started.dispatches where item.routingID == b {
            later += harness.handle(.workerMessage(CoreHarness.answer(item), from: b, origin: nil), at: at).dispatches
        }
        #expect(!later.isEmpty && later.allSatisfy { $0.routingID == b })
    }
}
