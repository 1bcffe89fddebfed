import Foundation
import SqueezeCoordinator
import SqueezeIO
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A coordinator and two workers in this process (as `squeeze compress` runs them), cancelled
/// while outputs are half written.
@Suite("Coordinator cancellation")
struct CancellationTests {
    @Test("a cancelled job reports finished only after its writers removed its temporaries")
    func finishedAfterTemporariesRemoved() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-cancel-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = root + "/src"
        let destination = root + "/out"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        // Many multi-block files that compress slowly (pseudo-random bytes), so several
        // temporaries are open when the cancel comes.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in 0..<12 {
            var bytes = [UInt8](repeating: 0, count: 2 << 20)
            for offset in stride(from: 0, to: bytes.count, by: 8) {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                withUnsafeBytes(of: seed) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: "\(source)/f\(index)"))
        }

        let context = try ZMQContext()
        let coordinator = Coordinator(configuration: CoordinatorConfiguration(blockSize: 64 << 10), context: context)
        let address = "inproc://cancellation-\(UUID().uuidString)"
        let (ready, readySink) = AsyncStream.makeStream(of: Void.self)
        var outcome: (state: JobState, temporaries: [String])?
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await coordinator.run(workerEndpoints: [address]) { _ in readySink.finish() } }
            for _ in 0..<2 {
                group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: address, slots: 1), context: context).run() }
            }
            for await _ in ready {}
            var request = JobRequest(source: source, destination: destination, level: 6, force: false)
            request.fileEvents = true
            let (accepted, events) = try await coordinator.submit(request)
            var cancelled = false
            for await event in events {
                switch event {
                case .fileDone where !cancelled, .filesDone where !cancelled:
                    cancelled = true
                    await coordinator.cancel(job: accepted.jobID)
                case .finished(let summary):
                    // Looked at the moment the job is reported over: nothing may be left.
                    outcome = (summary.state, Self.temporaries(under: destination))
                default:
                    break
                }
            }
            coordinator.shutdown()
            group.cancelAll()
        }
        _ = await context.terminate(timeout: .seconds(3))
        let result = try #require(outcome)
        #expect(result.state == .cancelled)
        #expect(result.temporaries.isEmpty, "temporaries still there when the job was reported cancelled")
    }

    private static func temporaries(under folder: String) -> [String] {
        let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return names.filter { ($0 as NSString).lastPathComponent.hasPrefix(AtomicOutputFile.temporaryPrefix) }
    }
}
