import SqueezeGzip
import Testing
@testable import SqueezeCoordinator

private let worker: PeerID = "w"
private let clientA = PeerID([1, 2, 3, 4, 5])
private let clientB = PeerID([9, 9, 9, 9, 9])

/// Jobs are fair between clients first, then between each client's jobs.
@Suite("Scheduler: fairness between clients")
struct ClientFairnessTests {
    @Test("a client with 50 jobs does not starve a client with one: its items go out within the first two assignments, and every other one after")
    func manyJobsAgainstOne() {
        var scheduler = Scheduler()
        for job in 1...50 { scheduler.addJob(JobID(UInt64(job)), items: 10, window: 10, engine: .zlib, client: clientA) }
        scheduler.addJob(100, items: 10, window: 10, engine: .zlib, client: clientB)
        scheduler.addWorker(worker, credit: 20, engines: Set(CompressionEngine.allCases))
        var made: [Assignment] = []
        while let next = scheduler.nextAssignment(now: t0) { made.append(next) }
        #expect(made.count == 20)
        let positions = made.indices.filter { made[$0].item.job == 100 }
        #expect(positions.first.map { $0 < 2 } == true, "B's first item at \(positions)")
        #expect(positions.count == 10, "B gets every other assignment: \(positions)")
        // A's turns go round its jobs: ten different jobs, not one job's items.
        #expect(Set(made.filter { $0.item.job != 100 }.map(\.item.job)).count == 10)
    }

    @Test("jobs of one client take turns; a client's last job ending keeps the others' turns")
    func turnsWithinAClient() {
        var order = FairOrder()
        order.add(1, client: clientA)
        order.add(2, client: clientA)
        order.add(3, client: clientB)
        func round(_ order: inout FairOrder, serving count: Int) -> [JobID] {
            var served: [JobID] = []
            for _ in 0..<count {
                var cursor = order.cursor()
                guard let job = order.next(&cursor) else { break }
                order.served(cursor)
                served.append(job)
            }
            return served
        }
        #expect(round(&order, serving: 6) == [1, 3, 2, 3, 1, 3])
        order.remove(3)
        #expect(round(&order, serving: 3) == [2, 1, 2])
        order.remove(1)
        order.remove(2)
        #expect(order.isEmpty)
        var cursor = order.cursor()
        #expect(order.next(&cursor) == nil)
    }

    @Test("a round offers every job once, the next client's first")
    func aRoundOffersEveryJob() {
        var order = FairOrder()
        for job: JobID in [1, 2, 3] { order.add(job, client: clientA) }
        order.add(4, client: clientB)
        var cursor = order.cursor()
        var offered: [JobID] = []
        while let job = order.next(&cursor) { offered.append(job) }
        #expect(offered == [1, 2, 3, 4])
        // Serving job 2 moves A's turn to job 3 and the next round to B.
        cursor = order.cursor()
        _ = order.next(&cursor)
        _ = order.next(&cursor)
        order.served(cursor)
        cursor = order.cursor()
        offered = []
        while let job = order.next(&cursor) { offered.append(job) }
        #expect(offered == [4, 3, 1, 2])
    }
}
