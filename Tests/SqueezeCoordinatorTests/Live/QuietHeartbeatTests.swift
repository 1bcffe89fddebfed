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
    /// When each message of one side arrived at the other, and whether it was a heartbeat.
    final class Timeline: Sendable {
        private let arrivals = NIOLockedValueBox<[(at: ContinuousClock.Instant, heartbeat: Bool)]>([])

        func note(_ message: WireMessage) {
            let heartbeat = if case .heartbeat = message { true } else { false }
            arrivals.withLockedValue { $0.append((.now, heartbeat)) }
        }

        var heartbeats: Int { arrivals.withLockedValue { $0.filter(\.heartbeat).count } }
        var count: Int { arrivals.withLockedValue { $0.count } }
        var others: Int { arrivals.withLockedValue { $0.filter { !$0.heartbeat }.count } }

        /// Heartbeats among the arrivals from index `first` on, and how many the rule allows
        /// there: one per half interval of every silence between the other messages (a stalled
        /// machine makes such silences, and a heartbeat in one is right), plus one.
        func busy(from first: Int, interval: Duration) -> (heartbeats: Int, allowed: Int) {
            arrivals.withLockedValue { arrivals in
                let window = arrivals.dropFirst(first)
                // From the arrival before the window to now: silences at either end count too.
                let others = arrivals.prefix(first).suffix(1).map(\.at) + window.filter { !$0.heartbeat }.map(\.at) + [.now]
                let allowed = zip(others, others.dropFirst()).reduce(1) { $0 + Int(($1.1 - $1.0) / (interval / 2)) }
                return (window.filter(\.heartbeat).count, allowed)
            }
        }
    }

    // The rule is checked against the silences the test saw rather than counted against the
    // clock, so a loaded machine that stalls the traffic cannot fail it; a heartbeat sent
    // regardless of traffic still shows, as beats among messages 50 ms apart.

    @Test("the worker sends no heartbeat while it answers a probe every 50 ms; once quiet, one about every 200 ms")
    func heartbeatsOnlyWhenQuiet() async throws {
        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let (coordinator, address) = (raw.endpoint, raw.address)
        var configuration = WorkerConfiguration(coordinator: address, slots: 1, workerID: "beating", heartbeatInterval: .milliseconds(200))
        configuration.storage = .remote  // probes are answered at once, without touching a disk
        let worker = Worker(configuration: configuration, context: context)
        let received = Timeline()
        let peer = NIOLockedValueBox<[UInt8]?>(nil)
        let welcome = Welcome(heartbeatMilliseconds: 200, liveness: 100)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                await raw.serve(welcome: welcome, peer: peer) { message in
                    received.note(message)
                }
            }
            let registered = await Self.eventually { peer.withLockedValue { $0 } != nil }
            #expect(registered)
            guard registered, let routing = peer.withLockedValue({ $0 }) else {
                group.cancelAll()
                return
            }

            // Busy: a probe every 50 ms, each answered; six intervals long.
            let busyStart = received.count
            let othersBefore = received.others
            for job in 1...24 {
                let probe = StorageProbe(jobID: UInt64(job), workspace: Array("/nonexistent".utf8), token: "t", sample: nil)
                raw.send(.probe(probe), to: routing)
                try? await Task.sleep(for: .milliseconds(50))
            }
            #expect(await Self.eventually { received.others - othersBefore >= 24 }, "every probe answered")
            let busy = received.busy(from: busyStart, interval: .milliseconds(200))
            #expect(busy.heartbeats <= busy.allowed, "heartbeats while answering: \(busy.heartbeats), allowed \(busy.allowed)")
            // Quiet: heartbeats come back, about one per interval: three well within ten.
            let quietStart = received.heartbeats
            #expect(await Self.eventually(within: .seconds(2)) { received.heartbeats - quietStart >= 3 })
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
        let received = Timeline()
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
                    if case .probe = envelope.message { probes.withLockedValue { $0 += 1 } }
                    received.note(envelope.message)
                }
            }
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Hostile.eventually { await coordinator.workerCount == 2 })

            // Busy: job after job for four intervals, each probing the watcher.
            let busyStart = received.count
            let started = ContinuousClock.now
            var jobs = 0
            while ContinuousClock.now - started < .seconds(4) {
                let job = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: true))
                for await _ in job.1 {}
                jobs += 1
            }
            #expect(await Hostile.eventually { probes.withLockedValue { $0 } >= jobs }, "every job probes the watcher")
            let busy = received.busy(from: busyStart, interval: .seconds(1))
            #expect(busy.heartbeats <= busy.allowed, "heartbeats while probing: \(busy.heartbeats), allowed \(busy.allowed)")

            // Quiet: heartbeats come back.
            let quietStart = received.heartbeats
            #expect(await Hostile.eventually { received.heartbeats - quietStart >= 2 })
            await watcher.shutdown()
        }
    }

    /// Polls `condition` every 10 ms for up to `within`.
    static func eventually(within: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }
}
