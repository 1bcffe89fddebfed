import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// A stage that falls behind, through the whole core: new work waits, work out goes on.
@Suite("CoordinatorCore: stages that fall behind")
struct StageScenarioTests {
    @Test("while a writer queue is full no item goes out; when it drains, the items go out at once")
    func writerFull() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        #expect(harness.handle(.stageFull(.write(partition: 1)), at: .zero).isEmpty)
        let (_, started) = try harness.startJob(sizes: [4096, 4096])
        #expect(started.dispatches.isEmpty)
        let drained = harness.handle(.stageDrained(.write(partition: 1)), at: .milliseconds(5))
        #expect(drained.dispatches.count == 2 && drained.dispatches.allSatisfy { $0.routingID == a })
    }

    @Test("items already out are answered and written while the readers are behind; the next ones wait for them to drain")
    func answersGoOn() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: [4096, 4096, 4096])
        #expect(started.dispatches.count == 2, "a's credit")
        harness.handle(.stageFull(.dispatch), at: .milliseconds(1))
        let answered = harness.handle(.workerMessage(CoreHarness.answer(started.dispatches[0]), from: a, origin: nil), at: .milliseconds(2))
        #expect(!answered.writes.isEmpty, "the answer goes to its writer")
        #expect(answered.dispatches.isEmpty, "the freed credit waits")
        let drained = harness.handle(.stageDrained(.dispatch), at: .milliseconds(3))
        #expect(drained.dispatches.count == 1 && drained.dispatches[0].item == 2)
    }

    @Test("a full scanner queue does not hold back items, and a drained report for a stage that was not full changes nothing")
    func scanFullOnly() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        harness.handle(.stageFull(.scan), at: .zero)
        let (_, started) = try harness.startJob(sizes: [4096])
        #expect(started.dispatches.count == 1)
        #expect(harness.handle(.stageDrained(.check), at: .milliseconds(1)).isEmpty)
    }

    @Test("a tree bigger than one batch: its next scan waits while the scanner's queue is full, and goes out when it drains")
    func scanWaits() throws {
        var configuration = CoreHarness.configuration()
        configuration.scanBatchFiles = 8
        var harness = CoreHarness(configuration)
        defer { harness.cleanUp() }
        harness.register(a)
        harness.handle(.stageFull(.scan), at: .zero)
        let (job, started) = try harness.startJob(sizes: Array(repeating: 1, count: harness.core.configuration.scanBatchFiles + 10))
        #expect(!started.contains { if case .scan = $0 { true } else { false } })
        #expect(!started.dispatches.isEmpty, "the first batch's items go out meanwhile")
        let drained = harness.handle(.stageDrained(.scan), at: .milliseconds(1))
        let scans = drained.compactMap { if case .scan(let request) = $0 { request } else { nil } }
        #expect(scans.count == 1 && scans.first?.job == job && scans.first?.firstIndex == harness.core.configuration.scanBatchFiles)
    }
}
