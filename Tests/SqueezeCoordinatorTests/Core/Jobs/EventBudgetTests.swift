import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

@Suite("Event budget")
struct EventBudgetTests {
    @Test("a batch event too large for one client message is split in order, each part within the budget; none for no entries")
    func partsStayWithinTheBudget() {
        let long = String(repeating: "x", count: 4096)
        let notes = (0..<600).map { EntryNote(path: "\($0)/" + long, reason: "FIFO") }
        let parts = EventBudget.parts(notes, bytes: EventBudget.bytes(of:))
        #expect(parts.count == 3)
        #expect(Array(parts.joined()) == notes)
        let sizes = parts.map { part in part.reduce(0) { $0 + EventBudget.bytes(of: $1) + 64 } }
        #expect(sizes.allSatisfy { $0 <= EventBudget.partBytes })
        // Encoded, every part fits in what a client takes in one message.
        for part in parts {
            let frames = WireCodec.encode(.jobEvent(.entriesSkipped(EntryNotes(entries: Array(part)))))
            #expect(frames.reduce(0) { $0 + $1.count } <= ProtocolLimits.maxControlBody)
        }
        #expect(EventBudget.parts([EntryNote](), bytes: EventBudget.bytes(of:)).isEmpty)
        // One entry larger than the budget still goes, alone.
        let huge = [EntryNote(path: String(repeating: "y", count: 2 << 20), reason: "")]
        #expect(EventBudget.parts(huge, bytes: EventBudget.bytes(of:)).map(\.count) == [1])
    }
}
