import SqueezeGzip
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// A worker that registers again (it reconnected, or the coordinator had declared it dead)
/// finishes the items it still holds instead of having them sent again.
@Suite("CoordinatorCore: a worker registering again keeps its work")
struct ReRegistrationTests {
    /// `peer`'s announcement, saying it holds `holding`.
    static func hello(_ peer: PeerID, holding: [Dispatch]) -> WireMessage {
        let pairs = holding.map { (job: $0.job.value, item: $0.item.value) }
        return .workerReady(WorkerHello(
            workerID: String(decoding: peer.bytes, as: UTF8.self), host: "test", slots: 1, pid: 1,
            engines: CompressionEngine.allCases.map(\.rawValue), storage: .remote, holding: HeldItems.grouped(pairs)))
    }

    /// The `keep` of the welcome among `effects` for `peer`.
    static func keep(in effects: [CoordinatorEffect], for peer: PeerID) -> [HeldItems]?? {
        for sent in effects.sent where sent.peer == peer {
            if case .welcome(let welcome) = sent.message { return .some(welcome.keep) }
        }
        return nil
    }

    @Test("registering again on a new connection: what it still holds stays with it, what it no longer holds is sent again")
    func reconnected() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (id, started) = try harness.startJob(sizes: [4096, 4096])
        let items = started.dispatches
        #expect(items.count == 2)
        // It answered the first on the old connection and lost it; it still holds the second.
        let again = harness.handle(.workerMessage(Self.hello(a, holding: [items[1]]), from: a, origin: CoreHarness.origin(of: a)),
                                   at: .milliseconds(50))
        #expect(Self.keep(in: again, for: a) == .some([HeldItems(jobID: id.value, itemIDs: [items[1].item.value])]))
        #expect(again.dispatches.map(\.item) == [items[0].item])
        #expect(harness.core.scheduler.busy(a) == 2)
        // Its answer to the kept item counts.
        harness.handle(.workerMessage(CoreHarness.answer(items[1]), from: a, origin: nil), at: .milliseconds(60))
        #expect(harness.core.lateResults == 0 && harness.core.scheduler.busy(a) == 1)
    }

    @Test("declared dead and back before anyone else took its items: it keeps them; a coordinator that never sent them keeps none")
    func backFromTheDead() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (id, started) = try harness.startJob(sizes: [4096, 4096])
        let items = started.dispatches
        // Liveness 3 at 1 s: silent past 3 s, declared dead on the next round; nobody else can take its items.
        harness.handle(.tick, at: .seconds(5))
        #expect(harness.core.workers[a] == nil && harness.core.scheduler.itemsQueued(job: id) == 2)
        let back = harness.handle(.workerMessage(Self.hello(a, holding: items), from: a, origin: CoreHarness.origin(of: a)), at: .seconds(6))
        #expect(Self.keep(in: back, for: a) == .some([HeldItems(jobID: id.value, itemIDs: items.map(\.item.value))]))
        #expect(back.dispatches.isEmpty && harness.core.scheduler.itemsQueued(job: id) == 0)
        for (offset, item) in items.enumerated() {
            harness.handle(.workerMessage(CoreHarness.answer(item), from: a, origin: nil), at: .seconds(6) + .milliseconds(offset + 1))
        }
        #expect(harness.core.lateResults == 0 && harness.core.malformedMessages == 0)

        // Another coordinator (restarted) never sent it anything: a worker's claims keep nothing.
        var fresh = CoreHarness()
        defer { fresh.cleanUp() }
        let (_, none) = try fresh.startJob(sizes: [4096])
        #expect(none.dispatches.isEmpty)
        let claimed = fresh.handle(.workerMessage(Self.hello(a, holding: items), from: a, origin: CoreHarness.origin(of: a)), at: .milliseconds(1))
        #expect(Self.keep(in: claimed, for: a) == .some([]))
        #expect(claimed.dispatches.count == 1)
    }

    @Test("a worker holding more than 65 items a slot is refused, and what it held is sent again")
    func claimsTooMany() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (id, started) = try harness.startJob(sizes: [4096, 4096])
        let heldByA = started.dispatches
        #expect(heldByA.count == 2)
        let hello = WorkerHello(workerID: "a", host: "test", slots: 1, pid: 1, storage: .remote,
                                holding: [HeldItems(jobID: id.value, itemIDs: Array(0..<66))])
        let refused = harness.handle(.workerMessage(.workerReady(hello), from: a, origin: nil), at: .milliseconds(5))
        #expect(harness.core.workers[a] == nil && harness.core.scheduler.itemsQueued(job: id) == 2)
        #expect(refused.sent.contains { if case .error(let reply) = $0.message { reply.message.contains("holding more than 65") } else { false } })
        let other = harness.register(b, at: .milliseconds(6))
        #expect(Set(other.dispatches.map(\.item)) == Set(heldByA.map(\.item)))
    }
}
