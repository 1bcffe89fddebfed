import Foundation
import SqueezeCoordinator
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// `fileDone` events come only to a request that asks for them (`fileEvents`), one per
/// published file; the outputs are the same either way.
@Suite("Coordinator file events")
struct FileEventsTests {
    @Test("fileDone only when asked, then one per file, naming each")
    func fileDoneOnlyWhenAsked() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-file-events-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = root + "/src"
        try FileManager.default.createDirectory(atPath: source + "/sub", withIntermediateDirectories: true)
        // Small files that bundle into shared items, and two that span several blocks.
        var expected = Set<String>()
        for index in 0..<40 {
            let name = index % 2 == 0 ? "s\(index).txt" : "sub/s\(index).txt"
            try Data(String(repeating: "line \(index) of a small file\n", count: 20 + index).utf8).write(to: URL(fileURLWithPath: "\(source)/\(name)"))
            expected.insert(name)
        }
        for index in 0..<2 {
            try Data(String(repeating: "a larger file \(index), spanning blocks\n", count: 8_000).utf8).write(to: URL(fileURLWithPath: "\(source)/big\(index)"))
            expected.insert("big\(index)")
        }

        let context = try ZMQContext()
        let coordinator = Coordinator(configuration: CoordinatorConfiguration(blockSize: 64 << 10), context: context)
        let address = "inproc://file-events-\(UUID().uuidString)"
        let (ready, readySink) = AsyncStream.makeStream(of: Void.self)
        var runs: [(done: [String], summary: JobSummary?)] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await coordinator.run(workerEndpoints: [address]) { _ in readySink.finish() } }
            for _ in 0..<2 {
                group.addTask { await Worker(configuration: WorkerConfiguration(coordinator: address, slots: 1), context: context).run() }
            }
            for await _ in ready {}
            for asked in [false, true] {
                var request = JobRequest(source: source, destination: root + "/out-\(asked)", level: 6, force: false)
                request.fileEvents = asked ? true : nil
                let (_, events) = try await coordinator.submit(request)
                var done: [String] = []
                var summary: JobSummary?
                for await event in events {
                    switch event {
                    case .fileDone(let file): done.append(file.path)
                    case .filesDone(let batch): done += batch.files.map(\.path)
                    case .finished(let end): summary = end
                    default: break
                    }
                }
                runs.append((done, summary))
            }
            coordinator.shutdown()
            group.cancelAll()
        }
        _ = await context.terminate(timeout: .seconds(3))

        try #require(runs.count == 2)
        let (quiet, asked) = (runs[0], runs[1])
        #expect(quiet.done.isEmpty)
        #expect(asked.done.count == expected.count)
        #expect(Set(asked.done) == expected)
        for run in runs {
            let summary = try #require(run.summary)
            #expect(summary.state == .completed)
            #expect(summary.filesCompressed == expected.count)
        }
        // The same outputs either way.
        for name in expected {
            let without = FileManager.default.contents(atPath: "\(root)/out-false/\(name).gz")
            let with = FileManager.default.contents(atPath: "\(root)/out-true/\(name).gz")
            #expect(without != nil && without == with, "\(name).gz differs or is missing")
        }
    }
}
