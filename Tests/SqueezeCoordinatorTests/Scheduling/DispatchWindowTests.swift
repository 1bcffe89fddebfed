import Testing
@testable import SqueezeCoordinator

/// How far ahead of its oldest unwritten item a job may dispatch.
@Suite("Dispatch window")
struct DispatchWindowTests {
    let window = DispatchWindow()

    @Test("twice the cluster's credit: a large file spreads over every worker")
    func followsCredit() {
        // A hundred one-slot workers: 400 items of credit, 800 may be out.
        #expect(window.items(largestItem: 16 << 20, credit: 400) == 800)
        #expect(window.items(largestItem: 16 << 20, credit: 8) == 16)
        #expect(window.items(largestItem: 16 << 20, credit: Int.max) == Int.max)
    }

    @Test("never narrower than 64 MiB over the largest item, whatever the relay budget")
    func atLeastTheBudget() {
        #expect(window.items(largestItem: 4 << 20, credit: 2) == 16)
        #expect(window.items(largestItem: 16 << 20, credit: 0) == 4)
        #expect(window.items(largestItem: 1 << 40, credit: 0) == 1)
        #expect(window.items(largestItem: 0, credit: 0) == 64 << 20)
    }
}
