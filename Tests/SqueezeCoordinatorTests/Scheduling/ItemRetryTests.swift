import SqueezeGzip
import Testing
@testable import SqueezeCoordinator

private let d: PeerID = "d"

/// Items that went wrong on a worker (`itemFailed`, a refused result) are retried elsewhere.
@Suite("Scheduler: retries elsewhere")
struct ItemRetryTests {
    @Test("an item that went wrong never goes back to the same worker, even when that worker has the most credit")
    func neverBackToTheSameWorker() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 100, engines: all)
        scheduler.addJob(1, items: 1, window: 10, engine: .zlib)
        let item = ItemKey(job: 1, item: 0)
        #expect(drain(&scheduler) == [Assignment(worker: a, item: item)])
        scheduler.addWorker(b, credit: 1, engines: all)
        #expect(scheduler.wentWrong(item, on: a) == .retry)
        // A loops would send it straight back to `a` (the freest); it waits for `b` instead.
        #expect(drain(&scheduler) == [Assignment(worker: b, item: item)])
        #expect(scheduler.complete(item, from: b, now: t0) == .accepted)
    }

    @Test("a retry that no worker with credit may take does not hold back the job's other items")
    func blockedRetryDoesNotBlock() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addJob(1, items: 5, window: 10, engine: .zlib)
        let first = drain(&scheduler)
        #expect(first.count == 3)
        let onB = first.first { $0.worker == b }!.item
        #expect(scheduler.wentWrong(onB, on: b) == .retry)
        // `b` has credit again, but may not take that item: it gets the next new one.
        let next = drain(&scheduler)
        #expect(next.count == 1 && next[0].worker == b && next[0].item != onB)
        // Once `a` has credit, the retry goes there, ahead of new items.
        #expect(scheduler.complete(first.first { $0.worker == a }!.item, from: a, now: t0) == .accepted)
        #expect(drain(&scheduler) == [Assignment(worker: a, item: onB)])
    }

    @Test("after going wrong on three distinct workers, the item gives up")
    func givesUpAfterTheLimit() {
        var scheduler = Scheduler()
        for worker in [a, b, c, d] { scheduler.addWorker(worker, credit: 1, engines: all) }
        scheduler.addJob(1, items: 1, window: 10, engine: .zlib)
        let item = ItemKey(job: 1, item: 0)
        var seen: [PeerID] = []
        for round in 0..<3 {
            let made = drain(&scheduler)
            #expect(made.count == 1)
            let worker = made[0].worker
            #expect(!seen.contains(worker))
            seen.append(worker)
            #expect(scheduler.wentWrong(item, on: worker) == (round < 2 ? .retry : .giveUp))
        }
        scheduler.settle(item)
        #expect(drain(&scheduler).isEmpty)
        #expect(scheduler.isSettled(item))
    }

    @Test("with no other connected worker that has the engine, the item gives up at once")
    func givesUpWithNoOtherWorker() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 4, engines: all)
        scheduler.addWorker(b, credit: 4, engines: [.zlib])
        scheduler.addJob(1, items: 1, window: 10, engine: .libdeflate)
        let made = drain(&scheduler)
        #expect(made.map(\.worker) == [a])
        #expect(scheduler.wentWrong(made[0].item, on: a) == .giveUp)
    }

    @Test("only the holder's word counts: a forger cannot use up an item's retries")
    func forgerCannotExhaust() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addWorker(b, credit: 0, engines: all)
        scheduler.addWorker(c, credit: 0, engines: all)
        scheduler.addJob(1, items: 1, window: 10, engine: .zlib)
        let item = ItemKey(job: 1, item: 0)
        #expect(drain(&scheduler).map(\.worker) == [a])
        for _ in 0..<5 {
            #expect(scheduler.wentWrong(item, on: b) == .notHolder)
            #expect(scheduler.wentWrong(item, on: c) == .notHolder)
        }
        #expect(scheduler.busy(a) == 1)
        #expect(scheduler.complete(item, from: a, now: t0) == .accepted)
    }

    @Test("with a copy still out, the copy decides; the worker that went wrong is not sent the item again")
    func copyStillOut() {
        let start = ContinuousClock.now
        var scheduler = Scheduler(deadline: ItemDeadline(floor: .seconds(1), factor: 10))
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addJob(1, items: 1, window: 10, engine: .zlib)
        let item = ItemKey(job: 1, item: 0)
        #expect(scheduler.nextAssignment(now: start)?.worker == a)
        scheduler.addWorker(b, credit: 1, engines: all)
        #expect(scheduler.nextAssignment(now: start + .seconds(2))?.worker == b)
        #expect(scheduler.wentWrong(item, on: b) == .stillHeld)
        #expect(scheduler.busy(b) == 0)
        #expect(scheduler.nextAssignment(now: start + .seconds(60)) == nil, "no copy back to b")
        // `a` dies: the item is requeued, and only a new worker may take it.
        #expect(scheduler.removeWorker(a).map(\.item) == [0])
        #expect(scheduler.nextAssignment(now: start + .seconds(61)) == nil)
        scheduler.addWorker(c, credit: 1, engines: all)
        #expect(scheduler.nextAssignment(now: start + .seconds(62)) == Assignment(worker: c, item: item))
    }

    @Test("a retry whose every capable worker went wrong on it, once the others left, is stranded; with none connected it waits")
    func stranded() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addJob(1, items: 2, window: 10, engine: .zlib)
        let made = drain(&scheduler)
        let onA = made.first { $0.worker == a }!.item
        #expect(scheduler.wentWrong(onA, on: a) == .retry)
        #expect(scheduler.takeStranded().isEmpty, "b may still take it")
        _ = scheduler.removeWorker(b)
        #expect(scheduler.takeStranded() == [onA])
        #expect(drain(&scheduler).map(\.item.item) != [onA.item])
        // Alone with no capable worker at all, a retry waits for one to join.
        var waiting = Scheduler()
        waiting.addWorker(a, credit: 1, engines: all)
        waiting.addWorker(b, credit: 1, engines: all)
        waiting.addJob(1, items: 1, window: 10, engine: .zlib)
        let only = drain(&waiting)[0]
        #expect(waiting.wentWrong(only.item, on: only.worker) == .retry)
        _ = waiting.removeWorker(a)
        _ = waiting.removeWorker(b)
        #expect(waiting.takeStranded().isEmpty)
        waiting.addWorker(c, credit: 1, engines: all)
        #expect(drain(&waiting) == [Assignment(worker: c, item: only.item)])
    }
}
