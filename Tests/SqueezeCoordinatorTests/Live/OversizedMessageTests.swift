import Foundation
import SqueezeCoordinator
import SqueezeProtocol
import SqueezeZMQ
import Testing

private typealias Hostile = HostilePeerTests

/// A coordinator in this process whose endpoints hold each message to its type's bound while
/// they read it: what goes past is dropped unread and counted, and the peer carries on.
@Suite("Coordinator against messages past their bounds", .serialized)
struct OversizedMessageTests {
    static func header(_ type: MessageType, correlation: UInt64 = 0) -> ZMQFrame {
        ZMQFrame(MessageHeader(type: type, correlation: correlation).encoded())
    }

    /// A result for an item of a job that does not run, small and well formed.
    static let result = ZMQMessage(WireCodec.encode(.result(WorkResult(jobID: 1, itemID: 2, blocks: [
        ResultBlock(crc: 0, rawLength: 10, bytes: ZMQFrame([3, 0])),
    ]))))

    @Test("a registered worker's heartbeat with extra frames, and a result of more frames than blocks allowed, are malformed; the worker stays")
    func registeredWorker() async throws {
        try await Hostile.withCoordinator { harness, _ in
            let coordinator = harness.coordinator
            let worker = try await Hostile.rawPeer("bulky", context: harness.context, address: harness.workers)
            worker.send(Hostile.hello("bulky", slots: 1))
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            let bulk = ZMQFrame([UInt8](repeating: 7, count: 64 << 10))
            worker.send(ZMQMessage([Self.header(.heartbeat)] + Array(repeating: bulk, count: 100)))
            worker.send(ZMQMessage([Self.header(.result), ZMQFrame([])] + Array(repeating: ZMQFrame([]), count: ProtocolLimits.maxBlocksPerItem + 1)))
            #expect(await Hostile.eventually { await coordinator.malformedMessages == 2 })
            // Within its bounds a result is read and judged as before: its job has ended, so it is late.
            worker.send(Self.result)
            #expect(await Hostile.eventually { await coordinator.lateResults == 1 })
            #expect(await coordinator.workerCount == 1)
            #expect(await coordinator.malformedMessages == 2)
            await worker.shutdown()
        }
    }

    @Test("a peer that has not registered may send only the handshake: its answers are dropped unread as late, anything else as malformed")
    func unregisteredPeer() async throws {
        try await Hostile.withCoordinator { harness, _ in
            let coordinator = harness.coordinator
            let stranger = try await Hostile.rawPeer("stranger", context: harness.context, address: harness.workers)
            stranger.send(Self.result)
            #expect(await Hostile.eventually { await coordinator.lateResults == 1 })
            stranger.send(ZMQMessage([Self.header(.statusRequest)]))
            // An announcement past its 1 MiB is refused before it is read; one within registers.
            var hello = WorkerHello(workerID: "stranger", host: "test", slots: 1, pid: 1)
            hello.engines = Array(repeating: "zlib", count: 200_000)
            stranger.send(ZMQMessage(WireCodec.encode(.workerReady(hello))))
            #expect(await Hostile.eventually { await coordinator.malformedMessages == 2 })
            #expect(await coordinator.workerCount == 0)
            #expect(await coordinator.lateResults == 1)
            stranger.send(Hostile.hello("stranger", slots: 1))
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            // Registered, its results are read and judged: this one's job has ended.
            stranger.send(Self.result)
            #expect(await Hostile.eventually { await coordinator.lateResults == 2 })
            #expect(await coordinator.malformedMessages == 2)
            await stranger.shutdown()
        }
    }

    @Test("on the client endpoint a submit past its bound is still answered with an error; a statusRequest with frames is dropped, the next one answered")
    func clients() async throws {
        try await Hostile.withCoordinator { harness, _ in
            let coordinator = harness.coordinator
            let client = try await ZMQEndpoint.start(context: harness.context, configuration: ZMQEndpointConfiguration(
                name: "client", type: .dealer, connect: [harness.clients]))
            let request = WireCodec.encode(.submit(JobRequest(source: "/nowhere", destination: nil, level: 6, force: false)), correlation: 41)
            client.send(ZMQMessage(request + [ZMQFrame([1, 2, 3])]))
            client.send(ZMQMessage([Self.header(.statusRequest, correlation: 42)] + Array(repeating: ZMQFrame([UInt8](repeating: 1, count: 1 << 20)), count: 8)))
            client.send(ZMQMessage([Self.header(.statusRequest, correlation: 43)]))
            var replies: [WireEnvelope] = []
            for await event in client.events {
                guard case .message(let message) = event, let envelope = try? WireCodec.decode(message.frames) else { continue }
                replies.append(envelope)
                if replies.count == 2 { break }
            }
            guard replies.count == 2, case .error(let refusal) = replies[0].message, case .statusReply(let status) = replies[1].message else {
                Issue.record("replies: \(replies)")
                return
            }
            #expect(replies[0].correlation == 41 && refusal.message.hasPrefix("submit refused: "))
            #expect(replies[1].correlation == 43 && status.malformedMessages == 2)
            #expect(await coordinator.malformedMessages == 2)
            await client.shutdown()
        }
    }
}
