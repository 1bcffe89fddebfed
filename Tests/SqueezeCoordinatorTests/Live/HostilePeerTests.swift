import Foundation
import Logging
import SqueezeCoordinator
import SqueezeGzip
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A coordinator in this process facing peers that speak the protocol wrongly on purpose:
/// it stays up, refuses what does not count, and the job beside them comes out right.
@Suite("Coordinator against hostile peers", .serialized)
struct HostilePeerTests {
    /// A job folder with a few text files; returns (source, destination, contents by name).
    static func makeJob(files: Int, bytes: Int) throws -> (String, String, [String: [UInt8]]) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-hostile-\(UUID().uuidString)").path
        let source = root + "/src"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        var contents: [String: [UInt8]] = [:]
        for index in 0..<files {
            let data = Array((0..<bytes).map { UInt8(truncatingIfNeeded: ($0 * 31 + index * 7) % 251) })
            try Data(data).write(to: URL(fileURLWithPath: "\(source)/f\(index)"))
            contents["f\(index)"] = data
        }
        return (source, root + "/out", contents)
    }

    static func rawPeer(_ id: String, context: ZMQContext, address: String) async throws -> ZMQEndpoint {
        try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "raw-\(id)", type: .dealer, options: [.routingID(Array(id.utf8))], connect: [address]))
    }

    static func hello(_ id: String, slots: Int, engines: [String]? = nil) -> ZMQMessage {
        ZMQMessage(WireCodec.encode(.workerReady(WorkerHello(workerID: id, host: "test", slots: slots, pid: 1, engines: engines))))
    }

    /// Every output decompresses to its source's bytes.
    static func expectOutputs(in destination: String, match contents: [String: [UInt8]],
                                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (name, data) in contents {
            let member = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(destination)/\(name).gz")))
            #expect(try GzipDecoder.decompress(member) == data, "\(name)", sourceLocation: sourceLocation)
        }
    }

    /// A coordinator running in this process on fresh inproc endpoints.
    struct Harness: Sendable {
        let context: ZMQContext
        let coordinator: Coordinator
        let workers: String
        let clients: String
    }

    /// Runs a coordinator while `body` runs. `body` may add tasks (workers, deadlines) to the
    /// group; they are cancelled and the coordinator shut down when it returns or throws.
    static func withCoordinator(
        _ configuration: CoordinatorConfiguration = CoordinatorConfiguration(liveness: 30),
        logger: Logger = Logger(label: "squeeze.coordinator"),
        _ body: (Harness, inout ThrowingTaskGroup<Void, any Error>) async throws -> Void
    ) async throws {
        let context = try ZMQContext()
        let harness = Harness(
            context: context, coordinator: Coordinator(configuration: configuration, context: context, logger: logger),
            workers: "inproc://hostile-workers-\(UUID().uuidString)", clients: "inproc://hostile-clients-\(UUID().uuidString)")
        let (ready, readySink) = AsyncStream.makeStream(of: Void.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await harness.coordinator.run(workerEndpoints: [harness.workers], clientEndpoints: [harness.clients]) { _ in readySink.finish() }
            }
            for await _ in ready {}
            do {
                try await body(harness, &group)
            } catch {
                harness.coordinator.shutdown()
                group.cancelAll()
                throw error
            }
            harness.coordinator.shutdown()
            group.cancelAll()
        }
        _ = await context.terminate(timeout: .seconds(3))
    }

    /// Polls `condition` every 10 ms for up to 10 s.
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test("slot counts out of range (overflowing ones included) and bad worker names are refused, not trusted")
    func slotsOutOfRange() async throws {
        let (source, destination, contents) = try Self.makeJob(files: 3, bytes: 50_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        var summary: JobSummary?
        try await Self.withCoordinator { harness, group in
            let coordinator = harness.coordinator
            let evil = try await Self.rawPeer("evil", context: harness.context, address: harness.workers)
            let claims = [(1 << 62) + 1, Int.max, 0, -5, WorkerHello.slotRange.upperBound + 1]
            for slots in claims { evil.send(Self.hello("evil", slots: slots)) }
            // Names that would forge log lines or are unbounded.
            let names = ["evil\nlevel=error msg=forged", "", String(repeating: "x", count: WorkerHello.maxNameBytes + 1), "tab\there"]
            for name in names { evil.send(Self.hello(name, slots: 1)) }
            #expect(await Self.eventually { await coordinator.malformedMessages == claims.count + names.count })
            #expect(await coordinator.workerCount == 0)

            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            #expect(await Self.eventually { await coordinator.workerCount == 1 })
            let (_, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            for await event in events { if case .finished(let final) = event { summary = final } }
            await evil.shutdown()
        }
        #expect(summary?.state == .completed)
        try Self.expectOutputs(in: destination, match: contents)
    }

    @Test("every submit gets a reply: a missing or mistyped field and an out-of-range value are named")
    func badSubmitsAreAnswered() async throws {
        let cases: [(body: String, answer: String)] = [
            (#"{"source":"/a"}"#, #"missing field "level""#),
            (#"{"source":"/a","level":"six","force":false}"#, #"field "level" is not a number"#),
            (#"{"source":"/a","level":6,"force":false,"heartbeatMilliseconds":0}"#, "heartbeatMilliseconds 0: must be 100-60000"),
            (#"{"source":"/a\u0000/etc","level":6,"force":false}"#, "source contains a NUL byte"),
            (#"{"source":"/a","level":6,"force":false,"engine":"zstd"}"#, #"unknown engine "zstd""#),
            (#"{"source":"/a","level":6}"#, #"missing field "force""#),
            (#"{"level":6,"force":false}"#, #"missing field "source""#),
            (#"{"source":7,"level":6,"force":false}"#, #"field "source" is not a string"#),
            (#"{"source":"/a","level":6,"force":"yes"}"#, #"field "force" is not a boolean"#),
            (#"{"source":"/a","level":6,"force":false,"detached":1}"#, #"field "detached" is not a boolean"#),
            (#"{"source":"/a","level":6,"force":false,"heartbeatMilliseconds":"fast"}"#, #"field "heartbeatMilliseconds" is not a number"#),
            (#"{"source":"/a","level":6,"force":false,"heartbeatMilliseconds":99}"#, "heartbeatMilliseconds 99: must be 100-60000"),
            (#"{"source":"/a","level":6,"force":false,"heartbeatMilliseconds":60001}"#, "heartbeatMilliseconds 60001: must be 100-60000"),
            (#"{"source":"/a","level":6,"force":false,"heartbeatMilliseconds":-9223372036854775808}"#, "heartbeatMilliseconds -9223372036854775808: must be 100-60000"),
            (#"{"source":"/a","destination":"/b\u0000c","level":6,"force":false}"#, "destination contains a NUL byte"),
            (#"{"source":"","level":6,"force":false}"#, "source is empty"),
            ("{\"source\":\"/a\",\"level\":6,\"force\":false,\"submitter\":\"\(String(repeating: "u", count: 257))\"}", "submitter: 257 bytes, at most 256"),
            (#"{"source":"/a","level":10,"force":false}"#, "level 10: must be 0-9"),
            (#"{"source":"/a","level":-1,"force":false}"#, "level -1: must be 0-9"),
            (#"{"source":"/a","level":6,"force":false,"blockSize":4095}"#, "blockSize 4095: must be between 4 KiB and 64 MiB"),
            (#"{"source":"/a","level":6,"force":false,"blockSize":9223372036854775807}"#, "blockSize 9223372036854775807: must be"),
            // Numbers that do not fit an integer field are refused by Foundation's parser as a
            // whole; an integer too large for 64 bits is named by the coordinator.
            (#"{"source":"/a","level":6,"force":false,"blockSize":1.5}"#, "not valid JSON"),
            (#"{"source":"/a","level":6,"force":false,"blockSize":1e30}"#, "not valid JSON"),
            (#"{"source":"/a","level":6,"force":false,"heartbeatMilliseconds":18446744073709551616}"#, #"field "heartbeatMilliseconds" is out of range"#),
            (#"{"source":"/a","level":18446744073709551616,"force":false}"#, #"field "level" is out of range"#),
            (#"{"source":"/a","level":6e9999,"force":false}"#, "not valid JSON"),
            ("not json at all", "JobRequest"),
        ]
        var answers: [UInt64: String] = [:]
        try await Self.withCoordinator { harness, group in
            let client = try await Self.rawPeer("client", context: harness.context, address: harness.clients)
            // A submit left unanswered must fail the test, not hang it.
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                if !Task.isCancelled { await client.shutdown() }
            }
            for (index, testCase) in cases.enumerated() {
                let header = MessageHeader(type: .submit, correlation: UInt64(100 + index)).encoded()
                client.send(ZMQMessage([header, Array(testCase.body.utf8)]))
            }
            for await event in client.events {
                guard case .message(let message) = event, let envelope = try? WireCodec.decode(message.frames),
                      case .error(let reply) = envelope.message else { continue }
                answers[envelope.correlation] = reply.message
                if answers.count == cases.count { break }
            }
            await client.shutdown()
        }
        for (index, testCase) in cases.enumerated() {
            let answer = answers[UInt64(100 + index)]
            #expect(answer?.contains(testCase.answer) == true, "\(testCase.body): \(answer ?? "no answer")")
        }
    }

    @Test("a worker that takes items and never answers cannot hold a job: copies go to another worker")
    func hoardingWorker() async throws {
        let (source, destination, contents) = try Self.makeJob(files: 12, bytes: 20_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        var summary: JobSummary?
        // Small blocks so the job has many items; a short deadline so the test is quick.
        let configuration = CoordinatorConfiguration(blockSize: 4096, liveness: 30, itemDeadline: .milliseconds(300))
        try await Self.withCoordinator(configuration) { harness, group in
            let coordinator = harness.coordinator
            // The hoarder announces the most slots allowed and every engine, then sits on its items.
            let hoarder = try await Self.rawPeer("hoarder", context: harness.context, address: harness.workers)
            hoarder.send(Self.hello("hoarder", slots: WorkerHello.slotRange.upperBound, engines: CompressionEngine.allCases.map(\.rawValue)))
            #expect(await Self.eventually { await coordinator.workerCount == 1 })
            let (accepted, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: harness.workers, slots: 1), context: harness.context).run() }
            // A job the hoarder holds must fail the test, not hang it.
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                if !Task.isCancelled { await coordinator.cancel(job: accepted.jobID, reason: "held by the hoarder") }
            }
            for await event in events { if case .finished(let final) = event { summary = final } }
            await hoarder.shutdown()
        }
        #expect(summary?.state == .completed)
        try Self.expectOutputs(in: destination, match: contents)
    }

    @Test("a result or itemFailed from a worker the item was not sent to does not count")
    func answersOnlyFromTheAssignee() async throws {
        let (source, destination, contents) = try Self.makeJob(files: 1, bytes: 40_000)
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        var summary: JobSummary?
        try await Self.withCoordinator { harness, _ in
            let coordinator = harness.coordinator
            // The honest worker offers every engine; the forger only zlib, so it is never sent
            // this job's (libdeflate) item.
            let honest = try await Self.rawPeer("honest", context: harness.context, address: harness.workers)
            let forger = try await Self.rawPeer("forger", context: harness.context, address: harness.workers)
            honest.send(Self.hello("honest", slots: 1, engines: CompressionEngine.allCases.map(\.rawValue)))
            forger.send(Self.hello("forger", slots: 4, engines: ["zlib"]))
            #expect(await Self.eventually { await coordinator.workerCount == 2 })

            let (_, events) = try await coordinator.submit(JobRequest(source: source, destination: destination, level: 6, force: false))
            var item: WorkAssignment?
            for await event in honest.events {
                guard case .message(let message) = event, case .work(let work)? = try? WireCodec.decode(message.frames).message else { continue }
                item = work
                break
            }
            let work = try #require(item)
            // A forged result (claiming the right lengths, with garbage bytes) and a forged
            // failure, both from the worker that does not hold the item.
            let forged = WorkResult(jobID: work.jobID, itemID: work.itemID, blocks: work.blocks.map {
                ResultBlock(crc: 0xDEAD_BEEF, rawLength: $0.dataLength, bytes: [0xFF, 0xFF, 0xFF])
            })
            forger.send(ZMQMessage(WireCodec.encode(.result(forged))))
            forger.send(ZMQMessage(WireCodec.encode(.itemFailed(ItemFailure(jobID: work.jobID, itemID: work.itemID, reason: "forged")))))
            #expect(await Self.eventually { await coordinator.lateResults == 2 })

            // The honest answer still counts.
            let compressor = try BlockCompressor(setting: work.setting)
            let blocks = try work.blocks.map { block in
                try block.bytes.withUnsafeBytes { raw in
                    let compressed = try compressor.compress(
                        UnsafeRawBufferPointer(rebasing: raw[block.dictionaryLength...]),
                        dictionary: UnsafeRawBufferPointer(rebasing: raw[..<block.dictionaryLength]), isLast: block.isLast)
                    return ResultBlock(crc: compressed.crc, rawLength: compressed.rawLength, bytes: ZMQFrame(compressed.bytes))
                }
            }
            honest.send(ZMQMessage(WireCodec.encode(.result(WorkResult(jobID: work.jobID, itemID: work.itemID, blocks: blocks)))))
            for await event in events { if case .finished(let final) = event { summary = final } }
            await honest.shutdown()
            await forger.shutdown()
        }
        #expect(summary?.state == .completed)
        #expect(summary?.failed.isEmpty == true)
        try Self.expectOutputs(in: destination, match: contents)
    }
}
