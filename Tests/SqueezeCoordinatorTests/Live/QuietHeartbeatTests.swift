import Foundation
import NIOConcurrencyHelpers
import SqueezeCoordinator
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// Any message is a sign of life, so neither side sends a heartbeat over a connection it is
/// using: on a busy cluster heartbeats would only cost both ends a message each way per second.
@Suite("Heartbeats go only where nothing else was sent for an interval")
struct QuietHeartbeatTests {
    /// Counts the heartbeats and probe replies a raw coordinator received.
    final class Received: Sendable {
        private let counts = NIOLockedValueBox((heartbeats: 0, replies: 0))

        func note(_ message: WireMessage) {
            counts.withLockedValue { counts in
                switch message {
                case .heartbeat: counts.heartbeats += 1
                case .probeReply: counts.replies += 1
                default: break
                }
            }
        }

        var heartbeats: Int { counts.withLockedValue { $0.heartbeats } }
        var replies: Int { counts.withLockedValue { $0.replies } }
    }

    @Test("no heartbeats while it answers a probe every 50 ms; one about every 200 ms once it goes quiet")
    func heartbeatsOnlyWhenQuiet() async throws {
        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let (coordinator, address) = (raw.endpoint, raw.address)
        var configuration = WorkerConfiguration(coordinator: address, slots: 1, workerID: "beating", heartbeatInterval: .milliseconds(200))
        configuration.storage = .remote  // probes are answered at once, without touching a disk
        let worker = Worker(configuration: configuration, context: context)
        let received = Received()
        let peer = NIOLockedValueBox<[UInt8]?>(nil)
        let welcome = Welcome(heartbeatMilliseconds: 200, liveness: 100)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                for await event in coordinator.events {
                    guard case .message(let message) = event, message.frames.count >= 2,
                          let envelope = try? WireCodec.decode(message.frames.dropFirst()) else { continue }
                    let from = Array(message.frames[0])
                    if case .workerReady = envelope.message {
                        peer.withLockedValue { $0 = from }
                        raw.send(.welcome(welcome), to: from)
                    }
                    received.note(envelope.message)
                }
            }
            let registered = await Self.eventually { peer.withLockedValue { $0 } != nil }
            #expect(registered)
            guard registered, let routing = peer.withLockedValue({ $0 }) else {
                group.cancelAll()
                return
            }

            // Busy: a probe every 50 ms, each answered; six intervals long.
            let busyStart = received.heartbeats
            let repliesBefore = received.replies
            for job in 1...24 {
                let probe = StorageProbe(jobID: UInt64(job), workspace: Array("/nonexistent".utf8), token: "t", sample: nil)
                raw.send(.probe(probe), to: routing)
                try? await Task.sleep(for: .milliseconds(50))
            }
            #expect(await Self.eventually { received.replies - repliesBefore == 24 })
            let busyBeats = received.heartbeats - busyStart
            // None is expected; one is allowed for a loaded machine that stalled the probes.
            #expect(busyBeats <= 1, "heartbeats while answering: \(busyBeats)")

            // Quiet: heartbeats come back, about one per interval.
            let quietStart = received.heartbeats
            #expect(await Self.eventually { received.heartbeats - quietStart >= 3 })
            group.cancelAll()
        }
        await coordinator.shutdown()
    }

    @Test("the coordinator sends a worker no heartbeat while it sends it a probe for job after job; then one per interval")
    func coordinatorHeartbeatsOnlyWhenQuiet() async throws {
        typealias Hostile = HostilePeerTests
        let (source, destination, _) = try Hostile.makeJob(files: 2, bytes: 20_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        let configuration = CoordinatorConfiguration(heartbeatInterval: .seconds(1), liveness: 30)
        let heartbeats = NIOLockedValueBox(0)
        let probes = NIOLockedValueBox(0)
        try await Hostile.withCoordinator(configuration) { harness, group in
            let coordinator = harness.coordinator
            // Storage `auto`, so each job probes it; only the stored engine, so it gets no item.
            let watcher = try await Hostile.rawPeer("watcher", context: harness.context, address: harness.workers)
            watcher.send(ZMQMessage(WireCodec.encode(.workerReady(WorkerHello(
                workerID: "watcher", host: "test", slots: 1, pid: 1, engines: ["stored"], storage: .auto)))))
            group.addTask {
                for await event in watcher.events {
                    guard case .message(let message) = event, let envelope = try? WireCodec.decode(message.frames) else { continue }
                    switch envelope.message {
                    case .heartbeat: heartbeats.withLockedValue { $0 += 1 }
                    case .probe: probes.withLockedValue { $0 += 1 }
                    default: break
                    }
                }
            }
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Hostile.eventually { await coordinator.workerCount == 2 })

            // Busy: job after job for four intervals, each probing the watcher.
            let busyStart = heartbeats.withLockedValue { $0 }
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(4) {
                let job = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: true))
                for await _ in job.1 {}
            }
            let busyBeats = heartbeats.withLockedValue { $0 } - busyStart
            #expect(probes.withLockedValue { $0 } >= 4, "too few jobs to keep the connection busy")
            // None is expected; one is allowed for a loaded machine where a job took a second.
            #expect(busyBeats <= 1, "heartbeats while probing: \(busyBeats)")

            // Quiet: heartbeats come back.
            let quietStart = heartbeats.withLockedValue { $0 }
            #expect(await Hostile.eventually { heartbeats.withLockedValue { $0 } - quietStart >= 2 })
            await watcher.shutdown()
        }
    }

    /// Polls `condition` every 10 ms for up to 10 s.
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }
}
