import Testing
@testable import SqueezeCoordinator

/// How far ahead of its oldest unwritten item a job may dispatch.
@Suite("Dispatch window")
struct DispatchWindowTests {
    let window = DispatchWindow(writeBehindBytes: 64 << 20)

    @Test("items that travel in messages are bounded by the write-behind budget, however many workers wait")
    func inMessages() {
        #expect(window.items(largestItem: 16 << 20, bytesPassHere: true, credit: 400) == 4)
        #expect(window.items(largestItem: 4 << 20, bytesPassHere: true, credit: 400) == 16)
        #expect(window.items(largestItem: 1 << 40, bytesPassHere: true, credit: 8) == 1)
    }

    @Test("by reference, twice the cluster's credit when that is more: a large file spreads over every worker")
    func byReference() {
        // A hundred one-slot workers: 400 items of credit, 800 may be out.
        #expect(window.items(largestItem: 16 << 20, bytesPassHere: false, credit: 400) == 800)
        // Two workers: the write-behind budget already allows more than their credit.
        #expect(window.items(largestItem: 4 << 20, bytesPassHere: false, credit: 8) == 16)
        #expect(window.items(largestItem: 16 << 20, bytesPassHere: false, credit: 8) == 16)
        #expect(window.items(largestItem: 16 << 20, bytesPassHere: false, credit: 0) == 4)
        #expect(window.items(largestItem: 16 << 20, bytesPassHere: false, credit: Int.max) == Int.max)
    }
}
