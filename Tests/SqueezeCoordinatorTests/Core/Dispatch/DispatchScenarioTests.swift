import Foundation
import SqueezeGzip
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Who gets which item, through the whole core: credit, engines, deadlines, checks.
@Suite("CoordinatorCore: dispatch")
struct DispatchScenarioTests {
    /// `peer` registers announcing only `engines`.
    func register(_ peer: PeerID, engines: [CompressionEngine], in harness: inout CoreHarness, at offset: Duration) -> [CoordinatorEffect] {
        let hello = WorkerHello(workerID: "\(peer)", host: "h", slots: 1, pid: 2, engines: engines.map(\.rawValue), storage: .remote)
        return harness.handle(.workerMessage(.workerReady(hello), from: peer, origin: CoreHarness.origin(of: peer)), at: offset)
    }

    @Test("a worker is given at most its slots times the credit per slot; the rest wait for its answers")
    func credit() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 2)
        let (_, started) = try harness.startJob(sizes: Array(repeating: 4096, count: 6))
        #expect(started.dispatches.count == 4, "two slots, two items of credit each")
        let answered = harness.handle(.workerMessage(CoreHarness.answer(started.dispatches[0]), from: a, origin: nil), at: .milliseconds(1))
        #expect(answered.dispatches.count == 1 && answered.dispatches[0].routingID == a)
    }

    @Test("a worker without the job's engine gets none of its items; one that has it gets them all")
    func engines() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        _ = register(a, engines: [.zlib], in: &harness, at: .zero)
        // Level 6 is libdeflate's.
        let (_, started) = try harness.startJob(sizes: [4096, 4096])
        #expect(started.dispatches.isEmpty)
        let joined = register(b, engines: [.libdeflate], in: &harness, at: .milliseconds(1))
        #expect(joined.dispatches.count == 2 && joined.dispatches.allSatisfy { $0.routingID == b })
    }

    @Test("an item held past its deadline goes to a second worker as well; the first answer wins and the other is late")
    func deadline() throws {
        var configuration = CoreHarness.configuration()
        configuration.itemDeadline = .seconds(2)
        var harness = CoreHarness(configuration)
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, started) = try harness.startJob(sizes: [4096])
        let item = try #require(started.dispatches.first)
        #expect(harness.register(b, at: .milliseconds(1)).dispatches.isEmpty, "nothing left to give b")
        // Both stay alive; the round after the deadline sends a copy to b.
        harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .milliseconds(2500))
        harness.handle(.workerMessage(.heartbeat, from: b, origin: nil), at: .milliseconds(2500))
        let round = harness.handle(.tick, at: .milliseconds(2600))
        let copy = try #require(round.dispatches.first)
        #expect(round.dispatches.count == 1 && copy.routingID == b && copy.item == item.item)
        let late = harness.core.lateResults
        let won = harness.handle(.workerMessage(CoreHarness.answer(copy), from: b, origin: nil), at: .milliseconds(2700))
        #expect(!won.writes.isEmpty)
        let lost = harness.handle(.workerMessage(CoreHarness.answer(item), from: a, origin: nil), at: .milliseconds(2800))
        #expect(lost.writes.isEmpty && harness.core.lateResults == late + 1)
        #expect(harness.core.jobs[job] != nil)
    }

    @Test("a job that asked not to be checked has its answers written at once, even with a verifier ready")
    func unchecked() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let hello = WorkerHello(workerID: "v", host: "h", slots: 1, pid: 9, engines: CompressionEngine.allCases.map(\.rawValue),
                                storage: .remote, capabilities: [WorkerHello.verifyCapability])
        harness.handle(.workerMessage(.workerReady(hello), from: b, origin: CoreHarness.origin(of: b)), at: .zero)
        let (_, started) = try harness.startJob(sizes: [4096], verify: false)
        let item = try #require(started.dispatches.first)
        let answered = harness.handle(.workerMessage(CoreHarness.answer(item), from: item.routingID, origin: nil), at: .milliseconds(1))
        #expect(!answered.writes.isEmpty)
        #expect(!answered.sent.contains { if case .verify = $0.message { true } else { false } })
    }

    @Test("an answer for a cancelled job is late: nothing is written and nothing more is sent")
    func cancelledJob() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, started) = try harness.startJob(sizes: [4096, 4096])
        harness.handle(.cancel(job, reason: "cancelled", as: .cancelled), at: .milliseconds(1))
        let late = harness.core.lateResults
        let answered = harness.handle(.workerMessage(CoreHarness.answer(started.dispatches[0]), from: a, origin: nil), at: .milliseconds(2))
        #expect(answered.writes.isEmpty && answered.dispatches.isEmpty)
        #expect(harness.core.lateResults == late + 1)
    }

    @Test("items of a worker that leaves wait in the queue while no worker is left, and go to the next one to join")
    func nobodyLeft() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: [4096, 4096])
        let gone = harness.handle(.workerMessage(.goodbye, from: a, origin: nil), at: .milliseconds(1))
        #expect(gone.dispatches.isEmpty && harness.core.scheduler.itemsQueued() == 2)
        let joined = harness.register(c, at: .milliseconds(2))
        #expect(Set(joined.dispatches.map(\.item)) == Set(started.dispatches.map(\.item)))
    }
}

/// What happens to an item that keeps going wrong, and how turns are shared.
@Suite("CoordinatorCore: retries and turns")
struct RetryScenarioTests {
    @Test("an item that fails on three different workers fails its file instead of going round for ever")
    func retriesRunOut() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, started) = try harness.startJob(sizes: [4096], fileEvents: true)
        var holder = try #require(started.dispatches.first)
        var failedEvents: [JobEvent] = []
        for (index, next) in [b, c, "d"].enumerated() {
            harness.register(next, at: .milliseconds(index * 10 + 1))
            let failure = ItemFailure(jobID: job.value, itemID: holder.item.value, reason: "no space")
            let effects = harness.handle(.workerMessage(.itemFailed(failure), from: holder.routingID, origin: nil), at: .milliseconds(index * 10 + 2))
            failedEvents += effects.events(of: job).filter { if case .fileFailed = $0 { true } else { false } }
            if index < 2 {
                holder = try #require(effects.dispatches.first, "goes to a worker it has not failed on")
                #expect(holder.routingID == next)
            } else {
                #expect(effects.dispatches.isEmpty, "a third worker went wrong on it: no fourth try")
            }
        }
        #expect(failedEvents.count == 1)
    }

    @Test("two clients' jobs share a worker turn by turn: one item of each, not all of the first")
    func turns() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let (first, _) = try harness.startJob(sizes: [4096, 4096, 4096], owner: "client-1")
        let (second, _) = try harness.startJob(sizes: [4096, 4096, 4096], owner: "client-2")
        let joined = harness.register(a, at: .milliseconds(1))
        #expect(joined.dispatches.map(\.job).sorted() == [first, second])
    }

    @Test("attempt numbers are never reused, across items and jobs: a piece's name says exactly which try wrote it")
    func attemptsUnique() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 8, storage: .shared)
        let (_, one) = try harness.startJob(sizes: [4096, 4096, 4096])
        let (_, two) = try harness.startJob(sizes: [4096, 4096, 4096])
        let attempts = (one + two).sent.compactMap { if case .workRef(let work) = $0.message { work.attempt } else { nil } }
        #expect(attempts.count == 6 && Set(attempts).count == 6)
    }
}
