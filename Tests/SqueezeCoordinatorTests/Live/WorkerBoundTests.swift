import Logging
import NIOConcurrencyHelpers
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A real worker whose coordinator sends messages past their bounds: it drops them unread,
/// says why, and keeps answering.
@Suite("Worker against messages past their bounds")
struct WorkerBoundTests {
    @Test("a heartbeat with frames and a type workers never receive are dropped and logged; the next probe is answered")
    func dropsAndCarriesOn() async throws {
        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let log = CapturedLog()
        let worker = Worker(configuration: WorkerConfiguration(coordinator: raw.address, slots: 1, workerID: "bounded"), context: context,
                            logger: Logger(label: "bounded") { _ in log })
        let replies = NIOLockedValueBox<[ProbeReply]>([])
        let peer = NIOLockedValueBox<[UInt8]?>(nil)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                await raw.serve(welcome: Welcome(heartbeatMilliseconds: 1000, liveness: 30), peer: peer) { message in
                    if case .probeReply(let reply) = message { replies.withLockedValue { $0.append(reply) } }
                }
            }
            guard let routing = await RawCoordinator.registered(peer) else {
                Issue.record("the worker never registered")
                group.cancelAll()
                return
            }
            let bulk = ZMQFrame([UInt8](repeating: 1, count: 64 << 10))
            raw.endpoint.send(ZMQMessage([ZMQFrame(routing), ZMQFrame(MessageHeader(type: .heartbeat).encoded())] + Array(repeating: bulk, count: 20)))
            raw.endpoint.send(ZMQMessage([ZMQFrame(routing)] + WireCodec.encode(.statusRequest)))
            raw.send(.probe(StorageProbe(jobID: 5, workspace: Array("/nonexistent/squeeze-bound".utf8), token: "t", sample: nil)), to: routing)
            #expect(await QuietHeartbeatTests.eventually { replies.withLockedValue { $0.map(\.jobID) } == [5] })
            let dropped = log.lines.filter { $0.contains("dropped malformed message") }
            #expect(dropped.count == 2, "\(dropped)")
            #expect(dropped.contains { $0.contains("frames of a heartbeat 21 exceeds the limit of 1") })
            #expect(dropped.contains { $0.contains("unexpected statusRequest from coordinator") })
            group.cancelAll()
        }
        await raw.endpoint.shutdown()
    }
}
