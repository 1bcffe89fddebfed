import Foundation
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Smaller rules of the core: counting what is malformed, where files are written, peers it
/// does not know, clients that keep up.
@Suite("CoordinatorCore: rules")
struct CoreRulesTests {
    @Test("a message that did not decode is counted against its peer and changes nothing else")
    func malformed() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096])
        let before = harness.core.malformedMessages
        let effects = harness.handle(.malformed(ProtocolError.malformed("bad frame"), from: a), at: .milliseconds(1))
        #expect(harness.core.malformedMessages == before + 1)
        #expect(effects.dispatches.isEmpty && effects.writes.isEmpty && harness.core.workers[a] != nil && harness.core.jobs[job] != nil)
    }

    @Test("a file always goes to the same writer partition, and a job's files spread over all of them")
    func partitions() {
        let harness = CoreHarness(writers: 3)
        let files = (0..<30).map { FileKey(job: 5, file: $0) }
        let partitions = files.compactMap { harness.core.writerPartition(of: $0) }
        #expect(partitions.count == 30 && Set(partitions) == [0, 1, 2])
        #expect(files.compactMap { harness.core.writerPartition(of: $0) } == partitions)
        #expect(CoreHarness(writers: 0).core.writerPartition(of: files[0]) == nil, "no writers, no partition")
    }

    @Test("a result from a peer that never registered is late: nothing is written and the item stays with its worker")
    func strangerResult() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: [4096])
        let item = try #require(started.dispatches.first)
        let late = harness.core.lateResults
        let effects = harness.handle(.workerMessage(CoreHarness.answer(item), from: "stranger", origin: nil), at: .milliseconds(1))
        #expect(effects.writes.isEmpty && harness.core.lateResults == late + 1)
        #expect(harness.core.scheduler.itemsInFlight(job: item.job).count == 1)
        #expect(!harness.handle(.workerMessage(CoreHarness.answer(item), from: a, origin: nil), at: .milliseconds(2)).writes.isEmpty)
    }

    @Test("an owner that keeps heartbeating keeps its job, however long it runs")
    func ownerKeepsUp() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let client: PeerID = "client"
        harness.register(a)
        // 500 ms heartbeats, liveness 3: a job dies after 1.5 s of silence, never with a beat every 400 ms.
        let (job, _) = try harness.startJob(sizes: [4096], owner: client, heartbeatMilliseconds: 500)
        for step in 1...25 {
            let at = Duration.milliseconds(step * 400)
            harness.handle(.clientHeard(client), at: at)
            harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: at)
            harness.handle(.tick, at: at)
        }
        #expect(harness.core.jobs[job]?.phase == .running)
    }

    @Test("a failure for an item the job never planned is malformed, and fails nothing")
    func unknownItemFailure() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096], fileEvents: true)
        let before = harness.core.malformedMessages
        let failure = ItemFailure(jobID: job.value, itemID: 999, reason: "no")
        let effects = harness.handle(.workerMessage(.itemFailed(failure), from: a, origin: nil), at: .milliseconds(1))
        #expect(harness.core.malformedMessages == before + 1)
        #expect(!effects.events(of: job).contains { if case .fileFailed = $0 { true } else { false } })
        #expect(harness.core.scheduler.itemsInFlight(job: job).count == 1)
    }

    @Test("attaching to a job this coordinator never ran is refused with the job's number")
    func attachUnknown() {
        var harness = CoreHarness()
        let error = #expect(throws: CoordinatorError.self) { try harness.core.attach(AttachRequest(jobID: 42), client: "watcher") }
        #expect(error?.message == "no job 42 on this coordinator")
    }
}
