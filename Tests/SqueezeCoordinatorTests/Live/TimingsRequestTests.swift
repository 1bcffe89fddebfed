import Foundation
import NIOConcurrencyHelpers
import SqueezeCoordinator
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// Workers send `timing` and `clock` only while some job is traced: an untraced job costs the
/// coordinator no extra message per item.
@Suite("Timings are asked of workers only while a job is traced")
struct TimingsRequestTests {
    typealias Hostile = HostilePeerTests

    /// The `welcome` and `timings` messages a raw peer was sent, in order.
    final class Requests: Sendable {
        private let seen = NIOLockedValueBox([String]())

        func note(_ message: WireMessage) {
            switch message {
            case .welcome(let welcome): seen.withLockedValue { $0.append("welcome timings=\(welcome.timings == true)") }
            case .timings(let on): seen.withLockedValue { $0.append("timings \(on)") }
            default: break
            }
        }

        var all: [String] { seen.withLockedValue { $0 } }
    }

    @Test("welcome without timings; timings on for a traced job's run and off after it; none for an untraced job")
    func timingsFollowTracedJobs() async throws {
        let (source, destination, contents) = try Hostile.makeJob(files: 2, bytes: 50_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        let requests = Requests()
        try await Hostile.withCoordinator { harness, group in
            let coordinator = harness.coordinator
            // Announces only the stored engine, so it is sent no level-6 item and no check:
            // it only watches what the coordinator asks of every worker.
            let observer = try await Hostile.rawPeer("observer", context: harness.context, address: harness.workers)
            observer.send(Hostile.hello("observer", slots: 1, engines: ["stored"]))
            group.addTask {
                for await event in observer.events {
                    guard case .message(let message) = event, let envelope = try? WireCodec.decode(message.frames) else { continue }
                    requests.note(envelope.message)
                }
            }
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Hostile.eventually { await coordinator.workerCount == 2 })

            let plain = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            var plainSummary: JobSummary?
            for await event in plain.1 { if case .finished(let final) = event { plainSummary = final } }
            #expect(plainSummary?.state == .completed)
            try Hostile.expectOutputs(in: destination, match: contents)
            #expect(requests.all == ["welcome timings=false"])

            var request = JobRequest(source: source, destination: destination, level: 6, force: true)
            request.trace = true
            let traced = try await coordinator.submit(request)
            var tracedSummary: JobSummary?
            var timedItems = 0
            for await event in traced.1 {
                switch event {
                case .finished(let final): tracedSummary = final
                case .trace(let chunk): timedItems += chunk.attempts.filter { $0.compressMicros != nil }.count
                default: break
                }
            }
            #expect(tracedSummary?.state == .completed)
            #expect(timedItems > 0, "the real worker sent no timing for the traced job")
            #expect(await Hostile.eventually { requests.all == ["welcome timings=false", "timings true", "timings false"] }, "\(requests.all)")
            await observer.shutdown()
        }
    }
}
