import SqueezeGzip
import Testing
@testable import SqueezeCoordinator

/// The relay budget: what items sent in messages may hold in the coordinator, across jobs.
@Suite("Relay budget")
struct RelayBudgetTests {
    static let mib: UInt64 = 1 << 20

    /// `count` workers named w0, w1… with `credit` each, all getting items in messages.
    private func workers(_ count: Int, credit: Int, in scheduler: inout Scheduler) -> [PeerID] {
        (0..<count).map { index in
            let id = PeerID(Array("w\(index)".utf8))
            scheduler.addWorker(id, credit: credit, engines: all)
            return id
        }
    }

    @Test("items in messages stop at the budget, however many workers wait; only a written item frees its share")
    func boundsRelayedItems() {
        var scheduler = Scheduler(relayBudget: 64 * Self.mib)
        _ = workers(8, credit: 4, in: &scheduler)
        scheduler.addJob(1, items: 0, window: 100, engine: .zlib)
        scheduler.addItems(1, count: 20, window: 100, bytes: Array(repeating: 16 * Self.mib, count: 20))
        let first = drain(&scheduler)
        #expect(first.map(\.item.item) == [0, 1, 2, 3])
        #expect(scheduler.relayedBytes == 64 * Self.mib)
        // Answered is not enough: the result waits here until it is written.
        #expect(scheduler.complete(first[1].item, from: first[1].worker, now: t0) == .accepted)
        #expect(drain(&scheduler).isEmpty)
        scheduler.written(first[1].item)
        #expect(drain(&scheduler).map(\.item.item) == [4])
        #expect(scheduler.relayedBytes == 64 * Self.mib)
    }

    @Test("a larger budget spreads one large file over every remote worker")
    func largerBudgetFeedsMoreWorkers() {
        var scheduler = Scheduler(relayBudget: 256 * Self.mib)
        let ids = workers(16, credit: 1, in: &scheduler)
        scheduler.addJob(1, items: 0, window: 1000, engine: .zlib)
        scheduler.addItems(1, count: 64, window: 1000, bytes: Array(repeating: 16 * Self.mib, count: 64))
        let sent = drain(&scheduler)
        #expect(sent.count == 16)
        #expect(Set(sent.map(\.worker)) == Set(ids))
    }

    @Test("workers that read the files themselves are not held back by the budget")
    func sharedWorkersAreOutsideTheBudget() {
        var scheduler = Scheduler(relayBudget: 16 * Self.mib)
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addWorker(b, credit: 2, engines: all)
        scheduler.addWorker(c, credit: 2, engines: all)
        scheduler.addJob(1, items: 0, window: 100, engine: .zlib)
        scheduler.setReadsItself(1, on: b, true)
        scheduler.setReadsItself(1, on: c, true)
        scheduler.addItems(1, count: 10, window: 100, bytes: Array(repeating: 16 * Self.mib, count: 10))
        let sent = drain(&scheduler)
        #expect(sent.filter { $0.worker == a }.count == 1)
        #expect(sent.filter { $0.worker == b }.count == 2)
        #expect(sent.filter { $0.worker == c }.count == 2)
        #expect(scheduler.relayedBytes == 16 * Self.mib)
        // A worker found to get the job's items in messages after all is held by the budget again.
        scheduler.setReadsItself(1, on: b, false)
        for assignment in sent where assignment.worker == b {
            #expect(scheduler.complete(assignment.item, from: b, now: t0) == .accepted)
        }
        #expect(drain(&scheduler).isEmpty)
    }

    @Test("a worker that gets items in messages holds at most its relay credit; by reference, its whole credit")
    func relayCredit() {
        var scheduler = Scheduler(relayBudget: 1 << 40)
        scheduler.addWorker(a, credit: 4, relayCredit: 2, engines: all)
        scheduler.addJob(1, items: 0, window: 100, engine: .zlib)
        scheduler.addItems(1, count: 10, window: 100, bytes: Array(repeating: 16 * Self.mib, count: 10))
        #expect(drain(&scheduler).count == 2)
        scheduler.setReadsItself(1, on: a, true)
        #expect(drain(&scheduler).count == 2)
        #expect(scheduler.busy(a) == 4)
        // Quarantined: no credit of either kind.
        scheduler.quarantine(a)
        #expect(drain(&scheduler).isEmpty)
    }

    @Test("an item larger than the budget still goes when nothing else is held")
    func oversizedItemGoesAlone() {
        var scheduler = Scheduler(relayBudget: Self.mib)
        _ = workers(2, credit: 2, in: &scheduler)
        scheduler.addJob(1, items: 0, window: 100, engine: .zlib)
        scheduler.addItems(1, count: 3, window: 100, bytes: Array(repeating: 16 * Self.mib, count: 3))
        let sent = drain(&scheduler)
        #expect(sent.map(\.item.item) == [0])
        #expect(scheduler.complete(sent[0].item, from: sent[0].worker, now: t0) == .accepted)
        scheduler.written(sent[0].item)
        #expect(drain(&scheduler).map(\.item.item) == [1])
    }

    @Test("jobs share the budget; a job that ends gives its share back")
    func sharedAcrossJobs() {
        var scheduler = Scheduler(relayBudget: 32 * Self.mib)
        scheduler.addWorker(a, credit: 10, engines: all)
        for job: JobID in [1, 2] {
            scheduler.addJob(job, items: 0, window: 100, engine: .zlib)
            scheduler.addItems(job, count: 5, window: 100, bytes: Array(repeating: 16 * Self.mib, count: 5))
        }
        let sent = drain(&scheduler)
        #expect(sent.count == 2)
        #expect(Set(sent.map(\.item.job)) == [1, 2])
        _ = scheduler.removeJob(1)
        #expect(scheduler.relayedBytes == 16 * Self.mib)
        #expect(drain(&scheduler).map(\.item) == [ItemKey(job: 2, item: 1)])
    }

    @Test("an item sent again (its worker died, or a copy) is not charged twice and is not held back")
    func resentItemIsChargedOnce() {
        var scheduler = Scheduler(relayBudget: 16 * Self.mib)
        scheduler.addWorker(a, credit: 2, engines: all)
        scheduler.addJob(1, items: 0, window: 100, engine: .zlib)
        scheduler.addItems(1, count: 2, window: 100, bytes: [16 * Self.mib, 16 * Self.mib])
        #expect(drain(&scheduler).map(\.item.item) == [0])
        #expect(scheduler.removeWorker(a) == [ItemKey(job: 1, item: 0)])
        scheduler.addWorker(b, credit: 2, engines: all)
        #expect(drain(&scheduler).map(\.item.item) == [0])
        #expect(scheduler.relayedBytes == 16 * Self.mib)
    }

    @Test("the default is an eighth of the memory this process may use, 64 MiB to 4 GiB")
    func defaultFollowsMemory() {
        let gib: UInt64 = 1 << 30
        #expect(RelayBudget.defaultBytes(physical: 24 * gib, limit: nil) == 3 << 30)
        #expect(RelayBudget.defaultBytes(physical: 256 * gib, limit: nil) == 4 << 30)
        #expect(RelayBudget.defaultBytes(physical: 256 * Self.mib, limit: nil) == 64 << 20)
        // A container's limit counts, not the host's memory; an unlimited v1 group reads as huge.
        #expect(RelayBudget.defaultBytes(physical: 64 * gib, limit: 2 * gib) == 256 << 20)
        #expect(RelayBudget.defaultBytes(physical: 8 * gib, limit: 9_223_372_036_854_771_712) == 1 << 30)
    }
}
