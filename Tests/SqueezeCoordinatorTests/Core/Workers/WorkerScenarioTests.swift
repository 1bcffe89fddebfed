import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Workers coming, going and proving what they see, through the whole core.
@Suite("CoordinatorCore: workers")
struct WorkerScenarioTests {
    @Test("a worker that says goodbye leaves at once: its items go to the worker left as soon as it has credit")
    func goodbye() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: [4096, 4096, 4096, 4096])
        let heldByA = Set(started.dispatches.map(\.item))
        #expect(heldByA.count == 2, "a's credit: one slot, two items")
        #expect(harness.register(b, slots: 4, at: .milliseconds(5)).dispatches.count == 2)
        let left = harness.handle(.workerMessage(.goodbye, from: a, origin: nil), at: .milliseconds(10))
        #expect(harness.core.workers[a] == nil && harness.core.workers.count == 1)
        #expect(Set(left.dispatches.map(\.item)) == heldByA && left.dispatches.allSatisfy { $0.routingID == b })
    }

    @Test("a failed send to a worker counts as its departure")
    func sendFailed() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        harness.register(b, slots: 4)
        let (_, started) = try harness.startJob(sizes: [4096, 4096])
        let heldByA = Set(started.dispatches.filter { $0.routingID == a }.map(\.item))
        let gone = harness.handle(.workerSendFailed(a, ZMQErrorFixture.hostUnreachable), at: .milliseconds(10))
        #expect(harness.core.workers[a] == nil)
        #expect(Set(gone.dispatches.map(\.item)) == heldByA)
    }

    @Test("a heartbeat from a peer the coordinator does not know is answered with unknownPeer, and registers nothing")
    func unknownPeer() {
        var harness = CoreHarness()
        let effects = harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .zero)
        #expect(effects.sent.contains { if case .unknownPeer = $0.message { $0.peer == a } else { false } })
        #expect(harness.core.workers.isEmpty)
    }

    @Test("a worker that announces itself again without saying what it holds gets its items requeued and starts over with a welcome")
    func reRegistration() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: [4096, 4096])
        #expect(started.dispatches.count == 2)
        let again = harness.register(a, at: .milliseconds(50))
        #expect(again.sent.contains { if case .welcome = $0.message { $0.peer == a } else { false } })
        // Its two items are sent again: a worker that does not say what it holds dropped it.
        #expect(Set(again.dispatches.map(\.item)) == Set(started.dispatches.map(\.item)))
    }

    @Test("a worker in auto mode is probed; the job's items wait for its answer, then go by reference when it sees the files")
    func probeThenShared() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, storage: .auto)
        let (job, started) = try harness.startJob(sizes: [4096])
        #expect(started.sent.contains { if case .probe(let probe) = $0.message { probe.jobID == job.value } else { false } })
        #expect(started.dispatches.isEmpty)
        #expect(!started.sent.contains { if case .workRef = $0.message { true } else { false } })
        let answered = harness.handle(.workerMessage(.probeReply(ProbeReply(jobID: job.value, shared: true)), from: a, origin: nil), at: .milliseconds(5))
        #expect(answered.sent.contains { if case .workRef(let work) = $0.message { work.jobID == job.value } else { false } })
    }

    @Test("a second job over the same root, into the same destination folder, is not probed again: the worker's answer stands for a minute, for that worker process")
    func probeOncePerRoot() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, storage: .auto)
        let (first, _) = try harness.startJob(sizes: [4096])
        let folder = harness.lastFolder
        harness.handle(.workerMessage(.probeReply(ProbeReply(jobID: first.value, shared: true)), from: a, origin: nil), at: .milliseconds(5))
        let (second, again) = try harness.startJob(sizes: [], sameSourceAs: folder, sameDestination: true, at: .milliseconds(10))
        #expect(!again.sent.contains { if case .probe = $0.message { true } else { false } })
        #expect(again.sent.contains { if case .workRef(let work) = $0.message { work.jobID == second.value } else { false } })
        // Into a sibling destination, neither.
        let (sibling, beside) = try harness.startJob(sizes: [], sameSourceAs: folder, at: .milliseconds(15))
        #expect(!beside.sent.contains { if case .probe = $0.message { true } else { false } })
        #expect(harness.core.workers[a]?.isShared(for: sibling) == true)
        // Another root is probed.
        let (third, other) = try harness.startJob(sizes: [4096], at: .milliseconds(20))
        #expect(other.sent.contains { if case .probe(let probe) = $0.message { probe.jobID == third.value } else { false } })
        // Past the answer's lifetime, the first root is probed again.
        for second in stride(from: 1, through: 70, by: 1) {
            harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(second))
        }
        let (fourth, late) = try harness.startJob(sizes: [], sameSourceAs: folder, sameDestination: true, at: .seconds(70))
        #expect(late.sent.contains { if case .probe(let probe) = $0.message { probe.jobID == fourth.value } else { false } })
    }

    @Test("a probe unanswered for its timeout makes the worker remote for the job: its items come in messages")
    func probeExpires() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, storage: .auto)
        let (job, _) = try harness.startJob(sizes: [4096])
        harness.handle(.tick, at: .milliseconds(100))
        #expect(harness.handle(.tick, at: .milliseconds(1100)).dispatches.isEmpty)
        harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(3))
        let expired = harness.handle(.tick, at: JobStorage.probeTimeout + .milliseconds(200))
        #expect(expired.dispatches.map(\.job) == [job])
        // The answer that comes too late changes nothing.
        let late = harness.handle(.workerMessage(.probeReply(ProbeReply(jobID: job.value, shared: true)), from: a, origin: nil), at: .seconds(4))
        #expect(late.sent.isEmpty && late.dispatches.isEmpty)
    }

    @Test("only the worker holding an item can fail it; from any other, the failure is late")
    func itemFailedOnlyFromHolder() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let item = try harness.oneItemHeldByA()
        let foreign = harness.handle(.workerMessage(.itemFailed(ItemFailure(jobID: item.job.value, itemID: item.item.value, reason: "x")), from: b, origin: nil),
                                     at: .milliseconds(2))
        #expect(harness.core.lateResults == 1 && foreign.dispatches.isEmpty)
        let real = harness.handle(.workerMessage(.itemFailed(ItemFailure(jobID: item.job.value, itemID: item.item.value, reason: "x")), from: a, origin: nil),
                                  at: .milliseconds(3))
        #expect(real.dispatches.map(\.routingID) == [b] && real.dispatches.map(\.item) == [item.item])
    }

    @Test("a worker that joins widens every running job's window")
    func joinWidensWindow() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: Array(repeating: 4096, count: 12))
        #expect(started.dispatches.count == 2)
        let joined = harness.register(b, slots: 4, at: .milliseconds(1))
        #expect(joined.dispatches.count == 8 && joined.dispatches.allSatisfy { $0.routingID == b })
    }
}
