import SqueezeGzip
import Testing
@testable import SqueezeCoordinator


@Suite("Scheduler")
struct SchedulerTests {
    @Test("a worker never holds more items than its credit; an answer frees one")
    func credit() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 3, engines: all)
        scheduler.addJob(1, items: 10, window: 100, engine: .libdeflate)
        let first = drain(&scheduler)
        #expect(first.map(\.item.item) == [0, 1, 2])
        #expect(scheduler.busy(a) == 3)
        #expect(scheduler.complete(ItemKey(job: 1, item: 1), from: a, now: t0) == .accepted)
        #expect(drain(&scheduler).map(\.item.item) == [3])
    }

    @Test("dispatch stays within the window of the oldest unwritten item")
    func window() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 100, engines: all)
        scheduler.addJob(1, items: 10, window: 4, engine: .zlib)
        #expect(drain(&scheduler).map(\.item.item) == [0, 1, 2, 3])
        // Writing a later item does not move the window; writing the oldest does.
        #expect(scheduler.complete(ItemKey(job: 1, item: 2), from: a, now: t0) == .accepted)
        scheduler.written(ItemKey(job: 1, item: 2))
        #expect(drain(&scheduler).isEmpty)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: t0) == .accepted)
        scheduler.written(ItemKey(job: 1, item: 0))
        #expect(drain(&scheduler).map(\.item.item) == [4])
        #expect(scheduler.complete(ItemKey(job: 1, item: 1), from: a, now: t0) == .accepted)
        scheduler.written(ItemKey(job: 1, item: 1))
        #expect(drain(&scheduler).map(\.item.item) == [5, 6])
    }

    @Test("urgent items (scans) go before those waiting, but one beyond the window holds nothing back")
    func urgentItemsGoFirst() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 100, engines: all)
        scheduler.addJob(1, items: 0, window: 3, engine: .zlib)
        scheduler.addItems(1, count: 2, window: 3)
        scheduler.addItems(1, count: 1, window: 3, urgent: 1)
        // Item 2 is urgent and inside the window: it goes before items 0 and 1.
        #expect(drain(&scheduler).map(\.item.item) == [2, 0, 1])
        scheduler.addItems(1, count: 2, window: 3, urgent: 1)
        #expect(scheduler.unsent(of: 1) == 2)
        // Items 3 (urgent) and 4 are beyond the window (base 0): nothing goes; once 0 is
        // written, 3 goes first.
        #expect(drain(&scheduler).isEmpty)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: t0) == .accepted)
        scheduler.written(ItemKey(job: 1, item: 0))
        #expect(drain(&scheduler).map(\.item.item) == [3])
        // An urgent item beyond the window does not hold back a plain one inside it.
        var held = Scheduler()
        held.addWorker(a, credit: 100, engines: all)
        held.addJob(2, items: 0, window: 2, engine: .zlib)
        held.addItems(2, count: 1, window: 2)
        held.addItems(2, count: 1, window: 2)
        #expect(drain(&held).map(\.item.item) == [0, 1])
        held.addItems(2, count: 1, window: 2)
        held.addItems(2, count: 1, window: 2, urgent: 1)
        #expect(held.complete(ItemKey(job: 2, item: 0), from: a, now: t0) == .accepted)
        held.written(ItemKey(job: 2, item: 0))
        #expect(drain(&held).map(\.item.item) == [2], "2 is in the window, urgent 3 is not")
    }

    @Test("items planned as the scan goes join the queue after the ones before; what is written is forgotten yet stays done")
    func itemsAddedLater() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 100, engines: all)
        scheduler.addJob(1, items: 0, window: 3, engine: .zlib)
        #expect(drain(&scheduler).isEmpty)
        #expect(scheduler.unsent(of: 1) == 0)
        scheduler.addItems(1, count: 2, window: 3)
        #expect(drain(&scheduler).map(\.item.item) == [0, 1])
        scheduler.addItems(1, count: 4, window: 3)
        #expect(scheduler.unsent(of: 1) == 4)
        // The window (3 from item 0) lets one of the new items go.
        #expect(drain(&scheduler).map(\.item.item) == [2])
        for item: ItemID in [0, 1] {
            #expect(scheduler.complete(ItemKey(job: 1, item: item), from: a, now: t0) == .accepted)
            scheduler.written(ItemKey(job: 1, item: item))
        }
        #expect(drain(&scheduler).map(\.item.item) == [3, 4])
        // Written items are behind the window's base: answers for them are late, not unknown.
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: t0) == .late)
        #expect(scheduler.complete(ItemKey(job: 1, item: 6), from: a, now: t0) == .unknownItem)
        #expect(scheduler.progress(of: 1)! == (2, 6))
        // A larger item planned later shrinks the window: nothing more goes until the base moves.
        scheduler.addItems(1, count: 0, window: 1)
        #expect(drain(&scheduler).isEmpty)
        #expect(scheduler.complete(ItemKey(job: 1, item: 2), from: a, now: t0) == .accepted)
        scheduler.written(ItemKey(job: 1, item: 2))
        #expect(drain(&scheduler).isEmpty, "items 3 and 4 are out, and the window is 1")
    }

    @Test("a slow disk holds dispatch: answered items that are not yet written keep the window")
    func slowWriter() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 100, engines: all)
        scheduler.addJob(1, items: 100, window: 8, engine: .zlib)
        var sent = drain(&scheduler)
        // Workers answer everything at once; nothing reaches the disk.
        for _ in 0..<5 {
            for assignment in sent { #expect(scheduler.complete(assignment.item, from: a, now: t0) == .accepted) }
            sent = drain(&scheduler)
        }
        #expect(scheduler.progress(of: 1)!.done == 8, "dispatch ran ahead of the writers")
        // The disk catches up with the first three: three more go out.
        for item in 0..<3 { scheduler.written(ItemKey(job: 1, item: ItemID(UInt64(item)))) }
        #expect(drain(&scheduler).map(\.item.item) == [8, 9, 10])
    }

    @Test("a dead worker's items go to the front of the queue, ahead of new work, to another worker")
    func requeueOnDeath() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addJob(1, items: 6, window: 100, engine: .zlib)
        #expect(drain(&scheduler).map(\.item.item) == [0, 1])
        let requeued = scheduler.removeWorker(a)
        #expect(requeued.map(\.item) == [0, 1])
        scheduler.addWorker(b, credit: 3, engines: all)
        let again = drain(&scheduler)
        #expect(again.map(\.item.item) == [0, 1, 2])
        #expect(again.allSatisfy { $0.worker == b })
        // The dead worker's result, arriving late, does not count: it no longer holds the item.
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: t0) == .notAssigned)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: b, now: t0) == .accepted)
    }

    @Test("the first answer wins; duplicates and answers for ended jobs are late")
    func duplicates() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addJob(1, items: 2, window: 10, engine: .zlib)
        _ = drain(&scheduler)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: t0) == .accepted)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: t0) == .late)
        #expect(scheduler.complete(ItemKey(job: 1, item: 9), from: a, now: t0) == .unknownItem)
        #expect(scheduler.removeJob(1) == [a])
        #expect(scheduler.complete(ItemKey(job: 1, item: 1), from: a, now: t0) == .late)
        #expect(scheduler.busy(a) == 0)
    }

    @Test("answers from a worker that was never sent the item are refused")
    func onlyTheAssignee() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addJob(1, items: 2, window: 10, engine: .zlib)
        let made = drain(&scheduler)
        #expect(made.count == 2)
        let toA = made.first { $0.worker == a }!.item
        #expect(scheduler.complete(toA, from: b, now: t0) == .notAssigned)
        #expect(scheduler.fail(toA, from: b) == .notAssigned)
        #expect(scheduler.busy(a) == 1)
        #expect(scheduler.fail(toA, from: a) == .accepted)
        #expect(scheduler.busy(a) == 0)
        #expect(!scheduler.isSettled(toA))
    }

    @Test("two jobs share the workers round-robin")
    func fairness() {
        var scheduler = Scheduler()
        scheduler.addJob(1, items: 100, window: 100, engine: .zlib)
        scheduler.addJob(2, items: 100, window: 100, engine: .zlib)
        scheduler.addWorker(a, credit: 10, engines: all)
        let made = drain(&scheduler)
        #expect(made.filter { $0.item.job == 1 }.count == 5)
        #expect(made.filter { $0.item.job == 2 }.count == 5)
        #expect(zip(made, made.dropFirst()).allSatisfy { $0.item.job != $1.item.job })
    }

    @Test("items go only to workers with the job's engine")
    func engines() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 5, engines: [.zlib])
        scheduler.addJob(1, items: 3, window: 10, engine: .libdeflate)
        #expect(!scheduler.canRun(.libdeflate))
        #expect(drain(&scheduler).isEmpty)
        scheduler.addWorker(b, credit: 5, engines: all)
        let made = drain(&scheduler)
        #expect(made.count == 3 && made.allSatisfy { $0.worker == b })
    }

    @Test("cancel frees the credit of the workers holding the job's items and names them")
    func cancel() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addJob(1, items: 10, window: 10, engine: .zlib)
        #expect(drain(&scheduler).map(\.worker) == [a, b])
        scheduler.addJob(2, items: 10, window: 10, engine: .zlib)
        #expect(drain(&scheduler).isEmpty)
        let holders = scheduler.removeJob(1)
        #expect(Set(holders) == [a, b])
        // The freed credit goes to the other job.
        let next = drain(&scheduler)
        #expect(next.count == 2 && next.allSatisfy { $0.item.job == 2 })
        #expect(scheduler.removeJob(1).isEmpty)
    }

    @Test("a worker that registers again gives back what it held")
    func reRegistration() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addJob(1, items: 4, window: 10, engine: .zlib)
        _ = drain(&scheduler)
        #expect(scheduler.addWorker(a, credit: 2, engines: all).map(\.item) == [0, 1])
        #expect(drain(&scheduler).map(\.item.item) == [0, 1])
    }

    @Test("a refused result or a failed read sends the item again; settling ends it without a result")
    func requeueAndSettle() {
        var scheduler = Scheduler()
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addJob(1, items: 2, window: 10, engine: .zlib)
        let first = drain(&scheduler)
        scheduler.requeue(first[0].item, from: a)
        #expect(scheduler.busy(a) == 0)
        #expect(drain(&scheduler).map(\.item.item) == [0])
        scheduler.settle(ItemKey(job: 1, item: 0))
        #expect(scheduler.busy(a) == 0)
        #expect(scheduler.isSettled(ItemKey(job: 1, item: 0)))
        #expect(drain(&scheduler).map(\.item.item) == [1])
        #expect(scheduler.progress(of: 1)! == (1, 2))
    }

    @Test("an item held past its deadline goes once to a second worker; the first answer wins and frees the slower copy")
    func speculativeCopy() {
        let start = ContinuousClock.now
        let c: PeerID = "c"
        var scheduler = Scheduler(deadline: ItemDeadline(floor: .seconds(5), factor: 10))
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addJob(1, items: 1, window: 10, engine: .zlib)
        #expect(scheduler.nextAssignment(now: start)?.worker == a)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addWorker(c, credit: 1, engines: all)
        #expect(scheduler.nextAssignment(now: start + .seconds(4)) == nil, "a copy before the deadline")
        let copy = scheduler.nextAssignment(now: start + .seconds(6))
        #expect(copy?.worker == b && copy?.item == ItemKey(job: 1, item: 0))
        #expect(scheduler.nextAssignment(now: start + .seconds(60)) == nil, "only one copy")
        // The holder dying does not requeue an item whose copy is out.
        #expect(scheduler.removeWorker(a).isEmpty)
        scheduler.addWorker(a, credit: 1, engines: all)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: b, now: start + .seconds(7)) == .accepted)
        #expect(scheduler.busy(b) == 0)
    }

    @Test("the slower copy's answer is late and frees its worker's credit")
    func slowerCopyIsLate() {
        let start = ContinuousClock.now
        var scheduler = Scheduler(deadline: ItemDeadline(floor: .seconds(1), factor: 10))
        scheduler.addWorker(a, credit: 1, engines: all)
        scheduler.addJob(1, items: 1, window: 10, engine: .zlib)
        _ = scheduler.nextAssignment(now: start)
        scheduler.addWorker(b, credit: 1, engines: all)
        #expect(scheduler.nextAssignment(now: start + .seconds(2))?.worker == b)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: start + .seconds(3)) == .accepted)
        #expect(scheduler.busy(b) == 1, "b is still compressing its copy")
        // Were b to die now, the answered item would not be requeued.
        var dying = scheduler
        #expect(dying.removeWorker(b).isEmpty)
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: b, now: start + .seconds(4)) == .late)
        #expect(scheduler.busy(b) == 0)
        // A failed copy with the other still out does not fail the item.
        scheduler.addJob(2, items: 1, window: 10, engine: .zlib)
        _ = scheduler.nextAssignment(now: start + .seconds(5))
        let other = scheduler.nextAssignment(now: start + .seconds(40))
        #expect(other != nil)
        let first: PeerID = other?.worker == a ? b : a
        #expect(scheduler.fail(ItemKey(job: 2, item: 0), from: first) == .late)
        #expect(!scheduler.isSettled(ItemKey(job: 2, item: 0)))
    }

    @Test("the deadline follows the cluster's speed per byte and the item's size, never below its floor")
    func deadlineAdapts() {
        var deadline = ItemDeadline(floor: .seconds(2), factor: 10)
        #expect(deadline.allowance(bytes: 1 << 20) == .seconds(2))
        deadline.observe(.milliseconds(50), bytes: 1 << 20)
        #expect(deadline.allowance(bytes: 1 << 20) == .seconds(2))
        // One second per MiB from now on: ten of them for a 1 MiB item, forty for 4 MiB.
        for _ in 0..<200 { deadline.observe(.seconds(4), bytes: 4 << 20) }
        let small = deadline.allowance(bytes: 1 << 20), large = deadline.allowance(bytes: 4 << 20)
        #expect(small > .seconds(9.9) && small <= .seconds(10.01), "\(small)")
        #expect(large > .seconds(39.9) && large <= .seconds(40.01), "\(large)")
        // An item of unknown size gets the floor; an answer of unknown size teaches nothing.
        #expect(deadline.allowance(bytes: 0) == .seconds(2))
        deadline.observe(.seconds(1000), bytes: 0)
        #expect(deadline.allowance(bytes: 4 << 20) == large)
        // However slow the cluster looks, an item is re-dispatched within a day.
        deadline.observe(.seconds(1_000_000), bytes: 1)
        #expect(deadline.allowance(bytes: UInt64.max) == ItemDeadline.ceiling)
    }

    @Test("a big item is given longer than a small one before its copy goes out")
    func copiesFollowItemSize() {
        let start = ContinuousClock.now
        let c: PeerID = "c"
        var scheduler = Scheduler(deadline: ItemDeadline(floor: .seconds(1), factor: 2))
        scheduler.addWorker(a, credit: 3, engines: all)
        scheduler.addJob(1, items: 0, window: 10, engine: .zlib)
        // 1 MiB took a second: 2 s of allowance per MiB from now on.
        scheduler.addItems(1, count: 3, window: 10, bytes: [1 << 20, 1 << 20, 16 << 20])
        for _ in 0..<3 { _ = scheduler.nextAssignment(now: start) }
        #expect(scheduler.complete(ItemKey(job: 1, item: 0), from: a, now: start + .seconds(1)) == .accepted)
        scheduler.addWorker(b, credit: 1, engines: all)
        scheduler.addWorker(c, credit: 1, engines: all)
        #expect(scheduler.nextAssignment(now: start + .seconds(1.5)) == nil, "a copy before any deadline")
        // At 3 s the 1 MiB item is past its 2 s; the 16 MiB one has 32 s.
        #expect(scheduler.nextAssignment(now: start + .seconds(3))?.item == ItemKey(job: 1, item: 1))
        #expect(scheduler.nextAssignment(now: start + .seconds(20)) == nil, "the big item copied before its time")
        #expect(scheduler.nextAssignment(now: start + .seconds(33))?.item == ItemKey(job: 1, item: 2))
    }
}
