import Foundation
import Logging
import NIOConcurrencyHelpers
import SqueezeCoordinator
import SqueezeGzip
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A real coordinator and a real worker beside a peer that misbehaves on purpose: failing
/// every item, lying about lengths, taking another worker's id, flooding garbage, hogging
/// the cluster with jobs, or (a hostile coordinator) sending a worker impossible rules. The
/// process stays up, the job beside finishes with every output right.
@Suite("Coordinator against misbehaving peers: retries, ids, floods, fairness", .serialized)
struct MisbehavingPeerTests {
    typealias Hostile = HostilePeerTests

    /// How often a raw worker peer was sent each item, by (job, item).
    final class Received: Sendable {
        private let counts = NIOLockedValueBox([String: Int]())

        func note(_ work: WorkAssignment) {
            counts.withLockedValue { $0["\(work.jobID)/\(work.itemID)", default: 0] += 1 }
        }

        var total: Int { counts.withLockedValue { $0.values.reduce(0, +) } }
        var most: Int { counts.withLockedValue { $0.values.max() ?? 0 } }
    }

    /// A raw worker that answers every `work` it is sent with `answer`, counting what it got.
    static func misbehave(_ peer: ZMQEndpoint, received: Received, answer: @Sendable (WorkAssignment) -> WireMessage) async {
        for await event in peer.events {
            guard case .message(let message) = event, case .work(let work)? = try? WireCodec.decode(message.frames).message else { continue }
            received.note(work)
            peer.send(ZMQMessage(WireCodec.encode(answer(work))))
        }
    }

    static let everyEngine = CompressionEngine.allCases.map(\.rawValue)

    /// A job that does not end must fail the test, not hang it: it is cancelled after `limit`.
    static func cancel(_ job: UInt64, of coordinator: Coordinator, after limit: Duration, in group: inout ThrowingTaskGroup<Void, any Error>) {
        group.addTask {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { await coordinator.cancel(job: job, reason: "did not end within \(limit)") }
        }
    }

    @Test("itemFailed from the worker holding an item sends it to another worker: no file fails for it")
    func itemFailedIsRetriedElsewhere() async throws {
        let (source, destination, contents) = try Hostile.makeJob(files: 3, bytes: 50_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        var summary: JobSummary?
        let received = Received()
        try await Hostile.withCoordinator { harness, group in
            let coordinator = harness.coordinator
            let failer = try await Hostile.rawPeer("failer", context: harness.context, address: harness.workers)
            failer.send(Hostile.hello("failer", slots: 4, engines: Self.everyEngine))
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            group.addTask {
                await Self.misbehave(failer, received: received) { work in
                    .itemFailed(ItemFailure(jobID: work.jobID, itemID: work.itemID, reason: "this worker fails everything"))
                }
            }
            // The real worker has less credit: the failer, the freest, gets the item first.
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Hostile.eventually { await coordinator.workerCount == 2 })
            let (accepted, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            Self.cancel(accepted.jobID, of: coordinator, after: .seconds(30), in: &group)
            for await event in events { if case .finished(let final) = event { summary = final } }
            await failer.shutdown()
        }
        #expect(summary?.state == .completed)
        #expect(summary?.failed.isEmpty == true, "\(summary?.failed ?? [])")
        #expect(received.total >= 1, "the failer was never sent the item")
        #expect(received.most == 1, "an item went back to the worker that failed it")
        try Hostile.expectOutputs(in: destination, match: contents)
    }

    @Test("an item whose every capable worker failed it fails its files, and the job ends")
    func itemFailedEverywhereFailsItsFiles() async throws {
        let (source, destination, _) = try Hostile.makeJob(files: 1, bytes: 10_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        var summary: JobSummary?
        let received = Received()
        try await Hostile.withCoordinator { harness, group in
            let coordinator = harness.coordinator
            let failer = try await Hostile.rawPeer("failer", context: harness.context, address: harness.workers)
            failer.send(Hostile.hello("failer", slots: 1, engines: Self.everyEngine))
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            group.addTask {
                await Self.misbehave(failer, received: received) { work in
                    .itemFailed(ItemFailure(jobID: work.jobID, itemID: work.itemID, reason: "no memory"))
                }
            }
            let (accepted, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            Self.cancel(accepted.jobID, of: coordinator, after: .seconds(30), in: &group)
            for await event in events { if case .finished(let final) = event { summary = final } }
            await failer.shutdown()
        }
        #expect(summary?.state == .completed)
        #expect(summary?.failed.map(\.path) == ["f0"])
        #expect(summary?.failed.first?.reason.contains("no memory") == true)
        #expect(received.total == 1)
    }

    @Test("a result refused for its lengths never goes back to the worker that sent it")
    func refusedResultDoesNotBounce() async throws {
        let (source, destination, contents) = try Self.makeSmallBlockJob()
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        var summary: JobSummary?
        let received = Received()
        let configuration = CoordinatorConfiguration(blockSize: 4096, liveness: 30)
        try await Hostile.withCoordinator(configuration) { harness, group in
            let coordinator = harness.coordinator
            // The liar has far more credit than the real worker: a requeued item would go
            // straight back to it, again and again.
            let liar = try await Hostile.rawPeer("liar", context: harness.context, address: harness.workers)
            liar.send(Hostile.hello("liar", slots: 16, engines: Self.everyEngine))
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            group.addTask {
                await Self.misbehave(liar, received: received) { work in
                    .result(WorkResult(jobID: work.jobID, itemID: work.itemID, blocks: work.blocks.map {
                        ResultBlock(crc: 0, rawLength: $0.dataLength + 1, bytes: [0x03, 0x00])
                    }))
                }
            }
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Hostile.eventually { await coordinator.workerCount == 2 })
            let (accepted, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            Self.cancel(accepted.jobID, of: coordinator, after: .seconds(30), in: &group)
            for await event in events { if case .finished(let final) = event { summary = final } }
            await liar.shutdown()
        }
        #expect(summary?.state == .completed)
        #expect(summary?.failed.isEmpty == true, "\(summary?.failed ?? [])")
        #expect(received.total >= 1, "the liar was never sent an item")
        #expect(received.most == 1, "a refused item was sent back to the liar")
        try Hostile.expectOutputs(in: destination, match: contents)
    }

    @Test("a second worker announcing a live worker's id is refused with an error; the first keeps working")
    func duplicateWorkerID() async throws {
        let (source, destination, contents) = try Hostile.makeJob(files: 2, bytes: 30_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        var summary: JobSummary?
        try await Hostile.withCoordinator { harness, group in
            let coordinator = harness.coordinator
            group.addTask {
                await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1, workerID: "twin"), context: harness.context).run()
            }
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            // Another connection (its own routing id) claiming the same worker id.
            let impostor = try await Hostile.rawPeer("impostor", context: harness.context, address: harness.workers)
            impostor.send(Hostile.hello("twin", slots: 8, engines: Self.everyEngine))
            var refusal: String?
            for await event in impostor.events {
                guard case .message(let message) = event, let envelope = try? WireCodec.decode(message.frames) else { continue }
                if case .error(let reply) = envelope.message { refusal = reply.message }
                break
            }
            #expect(refusal?.contains("\"twin\" is already in use") == true, "\(refusal ?? "no answer")")
            #expect(await coordinator.workerCount == 1)
            #expect(await coordinator.malformedMessages == 1)
            let (accepted, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            Self.cancel(accepted.jobID, of: coordinator, after: .seconds(30), in: &group)
            for await event in events { if case .finished(let final) = event { summary = final } }
            await impostor.shutdown()
        }
        #expect(summary?.state == .completed)
        try Hostile.expectOutputs(in: destination, match: contents)
    }

    @Test("a flood of malformed messages on both endpoints is counted in full and logged in a few lines")
    func floodIsRateLimited() async throws {
        let (source, destination, contents) = try Hostile.makeJob(files: 2, bytes: 30_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        let log = CapturedLog()
        var summary: JobSummary?
        try await Hostile.withCoordinator(logger: Logger(label: "flood") { _ in log }) { harness, group in
            let coordinator = harness.coordinator
            let worker = try await Hostile.rawPeer("garbage-worker", context: harness.context, address: harness.workers)
            let client = try await Hostile.rawPeer("garbage-client", context: harness.context, address: harness.clients)
            for index in 0..<2_000 {
                worker.send(ZMQMessage([ZMQFrame(Array("junk \(index)".utf8))]))
                if index % 4 == 0 { client.send(ZMQMessage([ZMQFrame([0x53, 0x51, 2, 99])])) }
            }
            #expect(await Hostile.eventually { await coordinator.malformedMessages == 2_500 })
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Hostile.eventually { await coordinator.workerCount == 1 })
            let (accepted, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            Self.cancel(accepted.jobID, of: coordinator, after: .seconds(30), in: &group)
            for await event in events { if case .finished(let final) = event { summary = final } }
            await worker.shutdown()
            await client.shutdown()
        }
        let lines = log.lines.filter { $0.contains("malformed") }
        #expect(lines.count <= 3, "\(lines.count) lines for 2,500 malformed messages")
        #expect(summary?.state == .completed)
        try Hostile.expectOutputs(in: destination, match: contents)
    }

    @Test("one client with 30 jobs does not starve another's one job: jobs take turns by client first")
    func fairBetweenClients() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-fair-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        // 31 jobs of one 40 KB file each: ten items apiece with 4 KiB blocks.
        for job in 0..<31 {
            try FileManager.default.createDirectory(atPath: "\(root)/src\(job)", withIntermediateDirectories: true)
            let data = Data((0..<40_000).map { UInt8(truncatingIfNeeded: ($0 * 13 + job) % 241) })
            try data.write(to: URL(fileURLWithPath: "\(root)/src\(job)/file"))
        }
        let configuration = CoordinatorConfiguration(blockSize: 4096, liveness: 30)
        var runningOfA = -1
        try await Hostile.withCoordinator(configuration) { harness, group in
            let coordinator = harness.coordinator
            let clientA = try await Hostile.rawPeer("client-a", context: harness.context, address: harness.clients)
            let clientB = try await Hostile.rawPeer("client-b", context: harness.context, address: harness.clients)
            func submit(_ job: Int, from client: ZMQEndpoint) {
                let request = JobRequest(source: "\(root)/src\(job)", destination: "\(root)/out\(job)", level: 6, force: false, detached: true)
                client.send(ZMQMessage(WireCodec.encode(.submit(request), correlation: UInt64(job + 1))))
            }
            func accepted(_ count: Int, by client: ZMQEndpoint) async -> [UInt64] {
                var ids: [UInt64] = []
                for await event in client.events {
                    guard case .message(let message) = event, case .submitted(let reply)? = try? WireCodec.decode(message.frames).message else { continue }
                    ids.append(reply.jobID)
                    if ids.count == count { break }
                }
                return ids
            }
            for job in 0..<30 { submit(job, from: clientA) }
            let jobsOfA = await accepted(30, by: clientA)
            submit(30, from: clientB)
            let jobOfB = try #require(await accepted(1, by: clientB).first)
            #expect(jobsOfA.count == 30)
            // Only now a worker: every job is waiting when dispatch starts.
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Hostile.eventually {
                await coordinator.status().jobs.contains { $0.jobID == jobOfB && $0.state == .completed }
            })
            let status = await coordinator.status()
            runningOfA = status.jobs.filter { jobsOfA.contains($0.jobID) && $0.state == .running }.count
            await clientA.shutdown()
            await clientB.shutdown()
        }
        // Taking turns by job, B's ten items would go out one per round of 31 jobs: A's jobs
        // would be about done by then. By client, B's items alternate with A's.
        #expect(runningOfA >= 20, "\(runningOfA) of A's 30 jobs still running when B's finished")
    }

    @Test("a welcome with heartbeat rules out of range does not crash a worker: it keeps its own and works")
    func hostileWelcome() async throws {
        let context = try ZMQContext()
        let address = "inproc://hostile-coordinator-\(UUID().uuidString)"
        let coordinator = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "fake-coordinator", type: .router, options: [.routerMandatory(true)], bind: [address]))
        let worker = Worker(configuration: WorkerConfiguration(coordinator: address, slots: 1, workerID: "victim"), context: context)
        let data = Array((0..<5_000).map { UInt8(truncatingIfNeeded: $0 % 97) })
        var answer: WorkResult?
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                if !Task.isCancelled { await coordinator.shutdown() }
            }
            for await event in coordinator.events {
                guard case .message(let message) = event, message.frames.count >= 2,
                      let envelope = try? WireCodec.decode(message.frames.dropFirst()) else { continue }
                let peer = ZMQFrame(Array(message.frames[0]))
                switch envelope.message {
                case .workerReady:
                    coordinator.send(ZMQMessage([peer] + WireCodec.encode(.welcome(Welcome(heartbeatMilliseconds: Int.max, liveness: Int.max)))))
                    // Long enough for the worker's heartbeat loop to run on those rules.
                    try? await Task.sleep(for: .milliseconds(500))
                    let setting = try EngineSetting(engine: .zlib, level: 6)
                    let work = WorkAssignment(jobID: 1, itemID: 1, setting: setting, blocks: [
                        WorkBlock(file: 0, index: 0, dictionaryLength: 0, isLast: true, bytes: ZMQFrame(data)),
                    ])
                    coordinator.send(ZMQMessage([peer] + WireCodec.encode(.work(work))))
                case .result(let result):
                    answer = result
                default:
                    continue
                }
                if answer != nil { break }
            }
            group.cancelAll()
        }
        await coordinator.shutdown()
        _ = await context.terminate(timeout: .seconds(3))
        let result = try #require(answer)
        #expect(result.blocks.count == 1 && result.blocks.first?.rawLength == data.count)
    }

    /// Twelve files of 20 KB: five 4 KiB blocks each, so the job has many items.
    static func makeSmallBlockJob() throws -> (String, String, [String: [UInt8]]) {
        try Hostile.makeJob(files: 12, bytes: 20_000)
    }
}

/// A log handler that keeps every line, for counting what a flood costs.
final class CapturedLog: LogHandler, Sendable {
    private let stored = NIOLockedValueBox([String]())

    var lines: [String] { stored.withLockedValue { $0 } }

    // Everything is kept, with no metadata of its own: the setters have nothing to set.
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        stored.withLockedValue { $0.append("\(event.level) \(event.message)") }
    }
}
