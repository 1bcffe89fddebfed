import Testing
@testable import SqueezeCoordinator

/// Typed identifiers: counters, ranges and how they read.
@Suite("Identifier")
struct IdentifierTests {
    @Test("take hands out consecutive ids and moves on; a range of items walks them in order")
    func counter() {
        var next: AttemptID = 7
        #expect(next.take() == 7 && next.take() == 8 && next == 9)
        let first: ItemID = 3
        #expect(Array(first..<first.advanced(by: 3)) == [3, 4, 5])
        #expect(first.distance(to: 10) == 7 && ItemID(10).distance(to: first) == -7)
    }

    @Test("an identifier reads and orders as its bare number, the one the wire and the journal carry")
    func reads() {
        let job = JobID(UInt64.max)
        #expect(job.description == "18446744073709551615" && job.value == .max)
        #expect(JobID(2) < JobID(10) && [JobID(10), 2, 5].sorted() == [2, 5, 10])
    }
}
