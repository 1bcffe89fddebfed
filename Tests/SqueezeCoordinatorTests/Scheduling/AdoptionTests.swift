import Testing
@testable import SqueezeCoordinator

/// A worker that registers again keeps the items it still holds, when nobody else got them.
@Suite("Scheduler: a worker registering again keeps its items")
struct AdoptionTests {
    /// Item `item` of job 1.
    static func key(_ item: UInt64) -> ItemKey { ItemKey(job: 1, item: ItemID(item)) }

    @Test("items it held and still holds come back to it, out of the queue; its answers count; new work goes on after them")
    func keepsWhatItHolds() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addJob(1, items: 6, window: 100, engine: .zlib)
        #expect(drain(&scheduler).map(\.item.item) == [0, 1])
        #expect(scheduler.removeWorker(a).map(\.item) == [0, 1])
        scheduler.addWorker(a, credit: 3, engines: all)
        // Claims of items it never held, or of another job, are ignored.
        let kept = scheduler.adopt([Self.key(0), Self.key(1), Self.key(4), ItemKey(job: 9, item: 0)], by: a)
        #expect(kept == [Self.key(0), Self.key(1)])
        #expect(scheduler.busy(a) == 2 && scheduler.itemsQueued(job: 1) == 4)
        // One credit left: the next new item, not a copy of the kept ones.
        #expect(drain(&scheduler).map(\.item.item) == [2])
        #expect(scheduler.complete(Self.key(0), from: a, now: t0) == .accepted)
        #expect(scheduler.complete(Self.key(1), from: a, now: t0) == .accepted)
    }

    @Test("an item sent to another worker meanwhile is not kept: that worker's copy decides")
    func sentElsewhere() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addJob(1, items: 2, window: 100, engine: .zlib)
        _ = drain(&scheduler)
        scheduler.removeWorker(a)
        scheduler.addWorker(b, credit: 1, engines: all)
        #expect(drain(&scheduler).map(\.item.item) == [0])
        scheduler.addWorker(a, credit: 2, engines: all)
        #expect(scheduler.adopt([Self.key(0), Self.key(1)], by: a) == [Self.key(1)])
        #expect(scheduler.complete(Self.key(0), from: a, now: t0) == .notAssigned)
        #expect(scheduler.complete(Self.key(0), from: b, now: t0) == .accepted)
        // Nothing is left to send: the kept item is not in the queue twice.
        #expect(drain(&scheduler).isEmpty && scheduler.itemsQueued(job: 1) == 0)
    }

    @Test("another worker cannot claim them, a quarantined one keeps nothing, and neither can claim an item done or of an ended job")
    func onlyItsOwn() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 3, engines: all)
        scheduler.addJob(1, items: 3, window: 100, engine: .zlib)
        _ = drain(&scheduler)
        scheduler.removeWorker(a)
        scheduler.addWorker(c, credit: 3, engines: all)
        scheduler.pause(1, on: c)  // nothing goes to c by itself
        #expect(scheduler.adopt([Self.key(0)], by: c).isEmpty)
        scheduler.addWorker(a, credit: 3, engines: all)
        scheduler.quarantine(a)
        #expect(scheduler.adopt([Self.key(0)], by: a).isEmpty)
        scheduler.addWorker(a, credit: 3, engines: all)
        scheduler.settle(Self.key(1))
        _ = scheduler.removeJob(1)
        #expect(scheduler.adopt([Self.key(0), Self.key(1), Self.key(2)], by: a).isEmpty)
    }

    @Test("a kept item's deadline runs from when it first went out: a straggler still gets a copy in time")
    func deadlineKeepsRunning() {
        var scheduler = Scheduler(deadline: ItemDeadline(floor: .seconds(30), factor: 10))
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addJob(1, items: 1, window: 100, engine: .zlib)
        _ = drain(&scheduler)
        scheduler.removeWorker(a)
        scheduler.addWorker(a, credit: 1, engines: all)
        #expect(scheduler.adopt([Self.key(0)], by: a) == [Self.key(0)])
        scheduler.addWorker(b, credit: 1, engines: all)
        #expect(scheduler.heldSince(Self.key(0), by: a) == t0)
        let copy = scheduler.nextAssignment(now: t0 + .seconds(31))
        #expect(copy?.worker == b && copy?.item == Self.key(0))
    }
}
