import SqueezeGzip
import Testing
@testable import SqueezeCoordinator


/// What happens to an answer the check refuses, and to its sender, as values: no sockets.
@Suite("Result check policy")
struct ResultCheckPolicyTests {
    @Test("a refused answer reopens its item, which goes to another worker, not back to its sender")
    func refusedGoesElsewhere() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 4, engines: all)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addJob(1, items: 1, window: 10, engine: .libdeflate)
        let first = drain(&scheduler)
        #expect(first.map(\.worker) == [a])
        let key = ItemKey(job: 1, item: 0)
        #expect(scheduler.complete(key, from: a, now: t0) == .accepted)
        #expect(scheduler.reopen(key, refusing: a) == .retry)
        #expect(!scheduler.isSettled(key))
        // a has the most free credit, yet the item goes to b.
        #expect(drain(&scheduler).map(\.worker) == [b])
        // A second answer from a is not taken: a no longer holds it.
        #expect(scheduler.complete(key, from: a, now: t0) == .notAssigned)
        #expect(scheduler.complete(key, from: b, now: t0) == .accepted)
    }

    @Test("while the other worker is busy the item waits for it; with no other worker left it never goes back: its files fail")
    func waitsForAnotherOrGivesUp() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 4, engines: all)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addJob(1, items: 2, window: 10, engine: .libdeflate)
        #expect(drain(&scheduler).count == 2)  // a: 0 and 1 (most credit first), or b one of them
        let key = ItemKey(job: 1, item: 0)
        let holder: PeerID = scheduler.busy(a) == 2 ? a : b
        // Fill b so only a has credit.
        scheduler.addJob(2, items: 1, window: 10, engine: .libdeflate)
        _ = drain(&scheduler)
        #expect(scheduler.complete(key, from: holder, now: t0) == .accepted)
        _ = scheduler.reopen(key, refusing: a)
        if scheduler.busy(b) > 0 {
            #expect(drain(&scheduler).isEmpty, "the item waits for b rather than going back to a")
        }
        // b leaves: a is the only worker, and the item does not go back to it; it is stranded.
        scheduler.removeWorker(b)
        #expect(!drain(&scheduler).contains { $0.item == key })
        #expect(scheduler.takeStranded() == [key])
        // With no other worker at all, a refusal gives the item up at once.
        let other = ItemKey(job: 1, item: 1)
        if scheduler.complete(other, from: a, now: t0) == .accepted {
            #expect(scheduler.reopen(other, refusing: a) == .giveUp)
        }
    }

    @Test("a quarantined worker gets nothing more; what it held goes to others")
    func quarantinedWorkerGetsNoWork() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 4, engines: all)
        scheduler.addJob(1, items: 3, window: 10, engine: .libdeflate)
        #expect(drain(&scheduler).count == 3)
        scheduler.quarantine(a)
        #expect(scheduler.busy(a) == 0)
        #expect(drain(&scheduler).isEmpty)
        scheduler.addWorker(b, credit: 4, engines: all)
        #expect(Set(drain(&scheduler).map(\.item.item)) == [0, 1, 2])
        #expect(drain(&scheduler).allSatisfy { $0.worker == b })
    }

    @Test("strikes: the first is reported, the threshold quarantines once, good answers do not wipe them")
    func strikes() {
        var quarantine = Quarantine(threshold: 3)
        #expect(quarantine.strike(a.bytes) == .first)
        #expect(quarantine.strike(b.bytes) == .first)
        #expect(quarantine.strike(a.bytes) == .repeated)
        #expect(!quarantine.isQuarantined(a.bytes))
        #expect(quarantine.strike(a.bytes) == .quarantined)
        #expect(quarantine.isQuarantined(a.bytes))
        #expect(quarantine.strike(a.bytes) == .repeated, "quarantined once, not again")
        #expect(quarantine.strikes(of: a.bytes) == 3)
        #expect(!quarantine.isQuarantined(b.bytes))
        #expect(Quarantine(threshold: 0).threshold == 1)
    }

    @Test("an item reopened after it was written stays written")
    func reopenAfterWriteIsIgnored() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 4, engines: all)
        scheduler.addJob(1, items: 1, window: 10, engine: .libdeflate)
        _ = drain(&scheduler)
        let key = ItemKey(job: 1, item: 0)
        #expect(scheduler.complete(key, from: a, now: t0) == .accepted)
        scheduler.written(key)
        #expect(scheduler.reopen(key, refusing: a) == .notHolder)
        #expect(scheduler.isSettled(key))
        #expect(drain(&scheduler).isEmpty)
    }
}
