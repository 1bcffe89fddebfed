import SqueezeGzip
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Who a worker is, as strikes see it, and the messages only a registered worker may send,
/// through the whole core.
@Suite("CoordinatorCore: worker identities")
struct IdentityScenarioTests {
    func hello(_ id: String) -> WorkerHello {
        WorkerHello(workerID: id, host: "h", slots: 1, pid: 1, engines: CompressionEngine.allCases.map(\.rawValue), storage: .remote)
    }

    /// Strikes `peer` three times for wrong lengths, on three one-file jobs it holds alone.
    func strikeThrice(_ peer: PeerID, in harness: inout CoreHarness) throws {
        for round in 0..<3 {
            let (_, started) = try harness.startJob(sizes: [4096], at: .milliseconds(10 * round))
            let item = try #require(started.dispatches.first { $0.routingID == peer })
            harness.handle(.workerMessage(CoreHarness.answer(item, lengthening: 1), from: peer, origin: ConnectionOrigin(key: "key-1")), at: .milliseconds(10 * round + 1))
        }
    }

    @Test("a worker quarantined under its CURVE key is quarantined again when it registers under a new id with the same key")
    func quarantineFollowsKey() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.handle(.workerMessage(.workerReady(hello("first")), from: a, origin: ConnectionOrigin(key: "key-1")), at: .zero)
        try strikeThrice(a, in: &harness)
        #expect(harness.core.verification.quarantine.isQuarantined(harness.core.verification.identity(of: a)))
        harness.handle(.workerMessage(.goodbye, from: a, origin: ConnectionOrigin(key: "key-1")), at: .milliseconds(50))
        harness.handle(.workerMessage(.workerReady(hello("second")), from: b, origin: ConnectionOrigin(key: "key-1")), at: .milliseconds(60))
        let (_, started) = try harness.startJob(sizes: [4096], at: .milliseconds(70))
        #expect(started.dispatches.isEmpty, "the same key gets no work under another id")
        // A worker with another key does: the items waiting for a worker go to it.
        let other = harness.handle(.workerMessage(.workerReady(hello("third")), from: c, origin: ConnectionOrigin(key: "key-2")), at: .milliseconds(80))
        #expect(!other.dispatches.isEmpty && other.dispatches.allSatisfy { $0.routingID == c })
    }

    @Test("without CURVE, strikes are counted under the routing id: a new connection starts clean")
    func noKeyNoCarryOver() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.handle(.workerMessage(.workerReady(hello("first")), from: a, origin: nil), at: .zero)
        #expect(harness.core.verification.identity(of: a) == a.bytes)
        harness.handle(.workerMessage(.workerReady(hello("second")), from: b, origin: ConnectionOrigin(key: "")), at: .zero)
        #expect(harness.core.verification.identity(of: b) == b.bytes, "an empty user id is no key")
    }

    @Test("timing and clock messages count only from registered workers with sane values")
    func timingsFromRegisteredOnly() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let timing = ItemTiming(jobID: 1, itemID: 0, slot: 5, receivedAt: 10, startedAt: 20, endedAt: 30, readMicros: 1, compressMicros: 1, writeMicros: 1)
        harness.handle(.workerMessage(.timing(timing), from: a, origin: nil), at: .zero)
        #expect(harness.core.malformedMessages == 0, "from an unknown peer it is ignored")
        harness.register(a)
        harness.handle(.workerMessage(.timing(timing), from: a, origin: nil), at: .milliseconds(1))
        #expect(harness.core.malformedMessages == 1, "slot 5 of 1")
        harness.handle(.workerMessage(.clock(1_000), from: b, origin: nil), at: .milliseconds(2))
        #expect(harness.core.clocks.offset(of: b) == nil)
        harness.handle(.workerMessage(.clock(1_000), from: a, origin: nil), at: .milliseconds(3))
        let offset = harness.core.clocks.offset(of: a)
        #expect(offset == Int64(2_000), "received at 3 ms, sent at 1 ms on the worker's clock")
    }

    @Test("a message only a coordinator sends, coming from a worker, is malformed")
    func unexpectedType() {
        var harness = CoreHarness()
        harness.register(a)
        harness.handle(.workerMessage(.welcome(Welcome(heartbeatMilliseconds: 1000, liveness: 3)), from: a, origin: nil), at: .zero)
        #expect(harness.core.malformedMessages == 1)
    }
}
