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
        let now = held.finish(Self.key(0), arrival: first, answer: ItemAnswer(Self.answer(0)), registration: 1)
        let later = held.finish(Self.key(1), arrival: second, answer: ItemAnswer(Self.answer(1)), registration: nil)
        #expect(now == Self.answer(0) && later == nil)
        #expect(held.holding == [HeldItems(jobID: 1, itemIDs: [1])])
    }

    @Test("keep: queued and compressing items not kept are dropped, kept answers that waited are handed back in order")
    func keep() {
        var held = HeldWork()
        let arrivals = (0..<5).map { held.receive(Self.key($0)) }
        let other = held.receive(Self.key(0, job: 2))
        for item in [0, 1, 2] { #expect(held.start(Self.key(UInt64(item)), arrival: arrivals[item]) == true) }
        _ = held.finish(Self.key(2), arrival: arrivals[2], answer: ItemAnswer(Self.answer(2)), registration: nil)
        _ = held.finish(Self.key(0), arrival: arrivals[0], answer: ItemAnswer(Self.answer(0)), registration: nil)
        #expect(held.holding == [HeldItems(jobID: 1, itemIDs: [0, 1, 2, 3, 4]), HeldItems(jobID: 2, itemIDs: [0])])
        let kept = held.keep([HeldItems(jobID: 1, itemIDs: [0, 1, 2, 4])])
        #expect(kept == [Self.answer(0), Self.answer(2)])
        #expect(held.holding == [HeldItems(jobID: 1, itemIDs: [1, 4])])
        // Item 3 was not kept: its slot skips it; item 1, compressing, finishes and is answered.
        #expect(held.start(Self.key(3), arrival: arrivals[3]) == false)
        #expect(held.start(Self.key(4), arrival: arrivals[4]) == true)
        #expect(!held.holds(Self.key(0, job: 2), arrival: other))
        let answered = held.finish(Self.key(1), arrival: arrivals[1], answer: ItemAnswer(Self.answer(1)), registration: 1)
        #expect(answered == Self.answer(1))
    }

    @Test("a coordinator that says nothing keeps nothing; an item sent again is a new arrival and only it counts")
    func nothingAndAgain() {
        var held = HeldWork()
        let old = held.receive(Self.key(7))
        #expect(held.keep(nil).isEmpty == true)
        #expect(held.count == 0)
        let dropped = held.finish(Self.key(7), arrival: old, answer: ItemAnswer(Self.answer(7)), registration: 1)
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

    /// Scan `item`'s whole answer, a listing of one small file with its piece, and the piece alone.
    static func scanned(_ item: UInt64) -> (report: ScanReport, pieces: WireMessage) {
        let result = RefResult(jobID: 1, itemID: item, attempt: 3, pieces: [PieceReport(crc: 7, rawLength: 10, pieceLength: 30)])
        let section = ScanSection(directory: Array("d".utf8), smallFiles: [
            BatchFile(relativePath: Array("f".utf8), size: 10, modifiedSeconds: 1, modifiedNanoseconds: 2, inode: 3, permissions: 0o644),
        ])
        return (ScanReport(jobID: 1, itemID: item, attempt: 3, outcome: .listed, sections: [section], result: result), .resultRef(result))
    }

    @Test("a scan whose listing went ahead sends only its pieces on that registration, and its whole answer on any later one or after a keep")
    func scanAnswers() {
        let (report, pieces) = Self.scanned(4)
        #expect(ItemAnswer(scanned: report, listedOn: 2).message(on: 2) == pieces)
        // Registered again since: the coordinator may have dropped the listing, or taken it.
        #expect(ItemAnswer(scanned: report, listedOn: 2).message(on: 3) == .scanned(report))
        // Listed while not registered: nothing went ahead.
        #expect(ItemAnswer(scanned: report, listedOn: nil).message(on: 1) == .scanned(report))
        // An answer of one message is that message on any registration.
        #expect(ItemAnswer(Self.answer(4)).message(on: 2) == Self.answer(4))

        var held = HeldWork()
        let now = held.receive(Self.key(4))
        #expect(held.start(Self.key(4), arrival: now) == true)
        #expect(held.finish(Self.key(4), arrival: now, answer: ItemAnswer(scanned: report, listedOn: 2), registration: 2) == pieces)
        // Done while unregistered, after its listing went ahead: the whole answer waits for the keep.
        let later = held.receive(Self.key(5))
        #expect(held.start(Self.key(5), arrival: later) == true)
        let (report5, _) = Self.scanned(5)
        #expect(held.finish(Self.key(5), arrival: later, answer: ItemAnswer(scanned: report5, listedOn: 2), registration: nil) == nil)
        #expect(held.keep([HeldItems(jobID: 1, itemIDs: [5])]) == [.scanned(report5)])
    }
}
