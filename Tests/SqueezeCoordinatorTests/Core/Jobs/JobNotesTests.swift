import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

@Suite("Job notes")
struct JobNotesTests {
    @Test("a million notes are counted, and only the first that a summary lists are kept, in order")
    func countsAllKeepsTheFirst() {
        var notes = JobNotes()
        #expect(notes.isEmpty && notes.listed.isEmpty)
        let reason = "output /data/out/file.gz already exists (use --force to replace it)"
        for index in 0..<1_000_000 {
            notes.append(EntryNote(path: "folder-\(index / 1000)/file-\(index).txt", reason: reason, outputExists: true))
        }
        #expect(notes.count == 1_000_000 && !notes.isEmpty)
        let listed = notes.listed
        #expect(listed.count > 1000 && listed.count < 10_000, "\(listed.count)")
        #expect(listed.map(\.path) == (0..<listed.count).map { "folder-\($0 / 1000)/file-\($0).txt" })
        #expect(listed.reduce(0) { $0 + EventBudget.bytes(of: $1) + EventBudget.fieldBytes } <= EventBudget.summaryListBytes)
    }

    @Test("a failure other than an existing output, noted after the list of existing ones is full, is listed first")
    func othersFirst() {
        var notes = JobNotes()
        notes += (0..<20_000).map { EntryNote(path: "e\($0)", reason: String(repeating: "r", count: 100), outputExists: true) }
        notes.append(EntryNote(path: "read error", reason: "I/O error"))
        #expect(notes.count == 20_001)
        #expect(notes.listed.first?.path == "read error")
        #expect(notes.listed.dropFirst().allSatisfy { $0.outputExists == true })
    }

    @Test("one note larger than the budget is still listed, alone; the next ones only counted")
    func oneLargeNote() {
        var notes = JobNotes()
        notes.append(EntryNote(path: String(repeating: "p", count: 600 << 10), reason: "x"))
        notes.append(EntryNote(path: "small", reason: "x"))
        #expect(notes.count == 2 && notes.listed.count == 1)
    }
}
