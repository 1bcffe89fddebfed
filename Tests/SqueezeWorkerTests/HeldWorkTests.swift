import SqueezeProtocol
import Testing
@testable import SqueezeWorker

/// What a worker holds across its connections, and what it does with the coordinator's `keep`.
@Suite("Worker: held work across sessions")
struct HeldWorkTests {
    static func key(_ item: UInt64, job: UInt64 = 1) -> HeldWork.Key { HeldWork.Key(job: job, item: item) }
    static func answer(_ item: UInt64) -> WireMessage {
        .itemFailed(ItemFailure(jobID: 1, itemID: item, reason: "answer \(item)"))
    }

    @Test("registered, an answer leaves at once and the item is no longer held; unregistered, it waits")
    func answersLeaveOrWait() {
        var held = HeldWork()
        let first = held.receive(Self.key(0))
        let second = held.receive(Self.key(1))
        let started = held.start(Self.key(0), arrival: first) && held.start(Self.key(1), arrival: second)
        #expect(started)
        let now = held.finish(Self.key(0), arrival: first, answer: Self.answer(0), registered: true)
        let later = held.finish(Self.key(1), arrival: second, answer: Self.answer(1), registered: false)
        #expect(now == Self.answer(0) && later == nil)
        #expect(held.holding == [HeldItems(jobID: 1, itemIDs: [1])])
    }

    @Test("keep: queued and compressing items not kept are dropped, kept answers that waited are handed back in order")
    func keep() {
        var held = HeldWork()
        let arrivals = (0..<5).map { held.receive(Self.key($0)) }
        let other = held.receive(Self.key(0, job: 2))
        for item in [0, 1, 2] { #expect(held.start(Self.key(UInt64(item)), arrival: arrivals[item]) == true) }
        _ = held.finish(Self.key(2), arrival: arrivals[2], answer: Self.answer(2), registered: false)
        _ = held.finish(Self.key(0), arrival: arrivals[0], answer: Self.answer(0), registered: false)
        #expect(held.holding == [HeldItems(jobID: 1, itemIDs: [0, 1, 2, 3, 4]), HeldItems(jobID: 2, itemIDs: [0])])
        let kept = held.keep([HeldItems(jobID: 1, itemIDs: [0, 1, 2, 4])])
        #expect(kept == [Self.answer(0), Self.answer(2)])
        #expect(held.holding == [HeldItems(jobID: 1, itemIDs: [1, 4])])
        // Item 3 was not kept: its slot skips it; item 1, compressing, finishes and is answered.
        #expect(held.start(Self.key(3), arrival: arrivals[3]) == false)
        #expect(held.start(Self.key(4), arrival: arrivals[4]) == true)
        #expect(!held.holds(Self.key(0, job: 2), arrival: other))
        let answered = held.finish(Self.key(1), arrival: arrivals[1], answer: Self.answer(1), registered: true)
        #expect(answered == Self.answer(1))
    }

    @Test("a coordinator that says nothing keeps nothing; an item sent again is a new arrival and only it counts")
    func nothingAndAgain() {
        var held = HeldWork()
        let old = held.receive(Self.key(7))
        #expect(held.keep(nil).isEmpty == true)
        #expect(held.count == 0)
        let dropped = held.finish(Self.key(7), arrival: old, answer: Self.answer(7), registered: true)
        #expect(dropped == nil)
        let first = held.receive(Self.key(8))
        let again = held.receive(Self.key(8))
        #expect(held.start(Self.key(8), arrival: first) == false)
        #expect(held.start(Self.key(8), arrival: again) == true)
        held.drop(Self.key(8), arrival: first)
        #expect(held.count == 1)
        held.drop(Self.key(8), arrival: again)
        #expect(held.count == 0)
    }
}
