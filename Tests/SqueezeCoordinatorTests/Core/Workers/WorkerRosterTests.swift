import SqueezeGzip
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

@Suite("WorkerRoster: registration, liveness, throughput")
struct WorkerRosterTests {
    let start = ContinuousClock.now
    let second = Duration.seconds(1)

    func hello(_ id: String, slots: Int = 2, storage: StorageMode? = nil) -> WorkerHello {
        WorkerHello(workerID: id, host: "test", slots: slots, pid: 1, storage: storage)
    }

    @Test("a worker silent for more than three heartbeats is declared dead, and the scheduler hands its items to another")
    func silentWorkerDeclaredDead() {
        var roster = WorkerRoster(heartbeatInterval: second, liveness: 3)
        var scheduler = Scheduler()
        for (peer, id) in [(a, "a"), (b, "b")] {
            roster.register(peer, hello: hello(id), at: start)
            scheduler.addWorker(peer, credit: 2, engines: all)
        }
        scheduler.addJob(1, items: 4, window: 10, engine: .libdeflate)
        let first = drain(&scheduler)
        let heldByA = first.filter { $0.worker == a }.map(\.item)
        #expect(!heldByA.isEmpty)
        // b keeps talking; a says nothing after registering.
        for beat in 1...4 { roster.heard(b, at: start + second * beat) }
        #expect(roster.silent(at: start + second * 3) == [], "three periods is still alive")
        #expect(roster.silent(at: start + second * 3 + .milliseconds(1)) == [a])
        // The coordinator removes it: its items go to b as b frees credit.
        #expect(roster.remove(a)?.hello.workerID == "a")
        let requeued = scheduler.removeWorker(a)
        #expect(Set(requeued) == Set(heldByA))
        for assignment in first where assignment.worker == b {
            _ = scheduler.complete(assignment.item, from: b, now: t0)
        }
        #expect(Set(drain(&scheduler).map(\.item)) == Set(heldByA))
        // b was last heard at 4 s.
        #expect(roster.silent(at: start + second * 7) == [] && roster.count == 1)
        #expect(roster.silent(at: start + second * 7 + .milliseconds(1)) == [b])
    }

    @Test("any message is a sign of life")
    func anyMessageCounts() {
        var roster = WorkerRoster(heartbeatInterval: second, liveness: 3)
        roster.register(a, hello: hello("a"), at: start)
        #expect(roster.heard(a, at: start + second * 3) == true)
        #expect(roster.silent(at: start + second * 6) == [])
        #expect(roster.silent(at: start + second * 6 + .milliseconds(1)) == [a])
        #expect(roster.heard(c, at: start) == false, "an unknown peer is not registered by being heard")
        #expect(roster[c] == nil)
    }

    @Test("a heartbeat goes only to workers sent nothing for a whole period")
    func heartbeatsOnlyWhenQuiet() {
        var roster = WorkerRoster(heartbeatInterval: second, liveness: 3)
        roster.register(a, hello: hello("a"), at: start)
        roster.register(b, hello: hello("b"), at: start)
        #expect(roster.quiet(at: start + .milliseconds(999)) == [])
        roster.sent(b, at: start + .milliseconds(500))
        #expect(roster.quiet(at: start + second) == [a])
        roster.sent(a, at: start + second)
        #expect(roster.quiet(at: start + second + .milliseconds(500)) == [b])
        #expect(roster.quiet(at: start + second * 2) == [a, b])
    }

    @Test("the round of liveness judgments runs at most once a period")
    func roundOncePerPeriod() {
        var roster = WorkerRoster(heartbeatInterval: second, liveness: 3)
        #expect(roster.roundDue(at: start) == true)
        #expect(roster.roundDue(at: start + .milliseconds(200)) == false)
        #expect(roster.roundDue(at: start + .milliseconds(999)) == false)
        #expect(roster.roundDue(at: start + second) == true)
        #expect(roster.roundDue(at: start + second + .milliseconds(40)) == false)
    }

    @Test("a second connection cannot take a live worker's id; the same connection re-registers")
    func uniqueIDs() {
        var roster = WorkerRoster(heartbeatInterval: second, liveness: 3)
        roster.register(a, hello: hello("w1", slots: 2), at: start)
        #expect(roster.holder(of: hello("w1"), otherThan: b)?.routingID == a)
        #expect(roster.holder(of: hello("w1"), otherThan: a) == nil)
        #expect(roster.holder(of: hello("w2"), otherThan: b) == nil)
        roster.register(a, hello: hello("w1", slots: 4), at: start + second)
        #expect(roster.count == 1 && roster.slots == 4)
        roster.remove(a)
        #expect(roster.holder(of: hello("w1"), otherThan: b) == nil, "free again once the first has left")
    }

    @Test("throughput counts the last five seconds; slots and engines sum over the workers")
    func throughputAndSums() {
        var roster = WorkerRoster(heartbeatInterval: second, liveness: 3)
        roster.register(a, hello: hello("a", slots: 3), at: start)
        var withEngines = hello("b", slots: 5)
        withEngines.engines = ["isal", "libdeflate", "no-such-engine"]
        roster.register(b, hello: withEngines, at: start)
        #expect(roster.slots == 8)
        #expect(roster.engineSummary == "isal, libdeflate, zlib")
        roster.credit(a, bytes: 10_000_000, at: start)
        roster.credit(a, bytes: 5_000_000, at: start + second * 4)
        #expect(roster[a]?.itemsDone == 2)
        #expect(roster[a]?.megabytesPerSecond(now: start + second * 4) == 3)
        // Six seconds on, the first result is out of the span.
        roster.credit(a, bytes: 0, at: start + second * 6)
        #expect(roster[a]?.recent.count == 2)
        #expect(roster[a]?.megabytesPerSecond(now: start + second * 6) == 1)
        roster.credit(c, bytes: 1, at: start)
        #expect(roster[c] == nil)
        #expect(WorkerRoster(heartbeatInterval: second, liveness: 3).engineSummary == "none")
    }
}
