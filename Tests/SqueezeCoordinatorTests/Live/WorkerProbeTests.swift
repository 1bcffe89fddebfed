import Foundation
import Glibc
import NIOConcurrencyHelpers
import SqueezeIO
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A worker answers storage probes on a thread of their own: a probe that arrives while the
/// worker joins a file's pieces (a 64 MiB segment can take a while on a network file system)
/// is answered at once, not after the copy.
@Suite("Worker: probes on a thread of their own, with a bounded queue")
struct WorkerProbeTests {
    @Test("a probe is answered while a stitch is stuck opening its output")
    func probeAnsweredDuringStitch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UInt64.random(in: 1...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let workspace = BytePath(folder)
        try Data("token".utf8).write(to: URL(fileURLWithPath: workspace.appending(JobWorkspace.probeName).display))
        // The stitch's output is a FIFO: opening it to write blocks the worker's I/O thread until
        // this test opens it to read, which it does only after the probe's answer came.
        let output = JobWorkspace.stitchPath(in: workspace, file: 0, attempt: 1)
        #expect(output.withCString { mkfifo($0, 0o600) } == 0)

        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let (coordinator, address) = (raw.endpoint, raw.address)
        var configuration = WorkerConfiguration(coordinator: address, slots: 1, workerID: "prober")
        configuration.storage = .auto
        let worker = Worker(configuration: configuration, context: context)
        let answers = NIOLockedValueBox<[String]>([])
        let peer = NIOLockedValueBox<[UInt8]?>(nil)
        var reader: Int32 = -1
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                await raw.serve(welcome: Welcome(heartbeatMilliseconds: 1000, liveness: 30), peer: peer) { message in
                    switch message {
                    case .probeReply(let reply): answers.withLockedValue { $0.append("probe \(reply.shared)") }
                    case .stitched(let result): answers.withLockedValue { $0.append("stitched \(result.failure ?? "ok")") }
                    default: break
                    }
                }
            }
            guard let routing = await RawCoordinator.registered(peer) else {
                Issue.record("the worker never registered")
                group.cancelAll()
                return
            }
            let stitch = StitchRequest(
                jobID: 1, file: 0, attempt: 1, workspace: workspace.bytes, offset: 10, syncResult: false, permissions: 0o644,
                modifiedSeconds: 0, modifiedNanoseconds: 0, header: [], trailer: [], pieces: [])
            raw.send(.stitch(stitch), to: routing)
            raw.send(.probe(StorageProbe(jobID: 1, workspace: workspace.bytes, token: "token", sample: nil)), to: routing)
            #expect(await QuietHeartbeatTests.eventually { answers.withLockedValue { $0 } == ["probe true"] }, "\(answers.withLockedValue { $0 })")
            // Unblock the stitch: it finishes, a segment after a header that ends at 10.
            reader = output.withCString { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
            #expect(reader >= 0)
            #expect(await QuietHeartbeatTests.eventually { answers.withLockedValue { $0 }.count == 2 })
            #expect(answers.withLockedValue { $0 } == ["probe true", "stitched ok"])
            group.cancelAll()
        }
        if reader >= 0 { close(reader) }
        await coordinator.shutdown()
    }

    @Test("probes past the 256 that may wait are answered at once as not shared, with the reason; every probe gets one answer")
    func probeQueueBound() async throws {
        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let (coordinator, address) = (raw.endpoint, raw.address)
        var configuration = WorkerConfiguration(coordinator: address, slots: 1, workerID: "flooded")
        configuration.storage = .auto
        // Each probe holds the probe thread 5 ms: 400 arrive far faster than that.
        configuration.probeDelayForTesting = .milliseconds(5)
        let worker = Worker(configuration: configuration, context: context)
        let replies = NIOLockedValueBox<[ProbeReply]>([])
        let peer = NIOLockedValueBox<[UInt8]?>(nil)
        let sent = 400
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                await raw.serve(welcome: Welcome(heartbeatMilliseconds: 1000, liveness: 30), peer: peer) { message in
                    switch message {
                    case .probeReply(let reply): replies.withLockedValue { $0.append(reply) }
                    default: break
                    }
                }
            }
            guard let routing = await RawCoordinator.registered(peer) else {
                Issue.record("the worker never registered")
                group.cancelAll()
                return
            }
            // Workspaces that do not exist: each probe, once its turn comes, is answered not shared.
            for job in 1...UInt64(sent) {
                raw.send(.probe(StorageProbe(jobID: job, workspace: Array("/nonexistent/squeeze-probe-\(job)".utf8), token: "t", sample: nil)), to: routing)
            }
            let overflow = "more than 256 probes waiting"
            #expect(await QuietHeartbeatTests.eventually { replies.withLockedValue { $0.count } == sent })
            let all = replies.withLockedValue { $0 }
            let refused = all.filter { $0.reason == overflow }.count
            // The bound bites, and only once 256 wait: at least those and the one on the thread
            // are answered in turn.
            #expect(refused > 0 && sent - refused >= 257, "refused \(refused) of \(sent)")
            #expect(Set(all.map(\.jobID)) == Set(1...UInt64(sent)), "one answer for every probe")
            #expect(all.allSatisfy { !$0.shared })
            group.cancelAll()
        }
        await coordinator.shutdown()
    }
}
