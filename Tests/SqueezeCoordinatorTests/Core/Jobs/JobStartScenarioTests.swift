import Foundation
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// What a job's start decides, through the whole core: its clients' first event, what the
/// scan skipped, traces, and what `status` shows.
@Suite("CoordinatorCore: starting jobs")
struct JobStartScenarioTests {
    @Test("started comes first, with the totals of the first batch; what the scan skipped follows as one event")
    func startedThenSkipped() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, effects) = try harness.startJob(sizes: [4096, 100]) { source in
            try FileManager.default.createSymbolicLink(atPath: source + "/link", withDestinationPath: source + "/f0")
            try FileManager.default.createSymbolicLink(atPath: source + "/link2", withDestinationPath: source + "/f1")
        }
        let events = effects.events(of: job)
        guard case .started(let start)? = events.first else {
            Issue.record("the first event is not started: \(events)")
            return
        }
        #expect(start.files == 2 && start.bytes == 4196)
        // One message for the batch's skipped entries, not one per entry.
        let skipped = events.compactMap { if case .entriesSkipped(let notes) = $0 { notes.entries.map(\.path) } else { nil } }
        #expect(skipped == [["link", "link2"]])
        #expect(!events.contains { if case .skipped = $0 { true } else { false } })
        #expect(harness.core.jobs[job]?.skipped.count == 2)
    }

    @Test("a traced job turns the workers' timings on before its items go out, and off when the last traced job ends")
    func traceTimings() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, started) = try harness.startJob(sizes: [4096], trace: true)
        let timingsOn = started.firstIndex { if case .send(.timings(true), a) = $0 { true } else { false } }
        let firstDispatch = started.firstIndex { if case .dispatch = $0 { true } else { false } }
        #expect(timingsOn != nil && firstDispatch != nil && timingsOn! < firstDispatch!)
        let cancelled = harness.handle(.cancel(job, reason: "cancelled", as: .cancelled), at: .milliseconds(1))
        #expect(!cancelled.sent.contains { if case .timings = $0.message { true } else { false } })
        harness.handle(.writerDiscarded(job), at: .milliseconds(2))
        harness.handle(.writerDiscarded(job), at: .milliseconds(2))
        let ended = harness.handle(.workspaceRemoved(job), at: .milliseconds(3))
        #expect(ended.sent.contains { if case .timings(false) = $0.message { $0.peer == a } else { false } })
        #expect(ended.events(of: job).contains { if case .trace = $0 { true } else { false } })
    }

    @Test("status lists the workers by id with what they hold, the running jobs, then the history")
    func status() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(b)
        harness.register(a, slots: 4)
        let (first, _) = try harness.startJob(sizes: [4096])
        let (second, _) = try harness.startJob(sizes: [4096, 4096])
        harness.handle(.cancel(first, reason: "cancelled", as: .cancelled), at: .milliseconds(1))
        harness.handle(.writerDiscarded(first), at: .milliseconds(1))
        harness.handle(.writerDiscarded(first), at: .milliseconds(1))
        harness.handle(.workspaceRemoved(first), at: .milliseconds(1))
        let status = harness.core.status(at: harness.time(.seconds(1)), cpuSeconds: 0.5)
        #expect(status.workers.map(\.workerID) == ["a", "b"])
        #expect(status.workers.map(\.busy).reduce(0, +) == 2)
        #expect(status.jobs.map(\.jobID) == [second.value, first.value])
        #expect(status.jobs.map(\.state) == [.running, .cancelled])
        #expect(status.coordinatorCPUSeconds == 0.5)
    }

    @Test("a tree bigger than one batch asks for the next batch, plans what it brings, and knows when the walk is done")
    func secondBatch() throws {
        var configuration = CoreHarness.configuration()
        configuration.scanBatchFiles = 8
        var harness = CoreHarness(configuration)
        defer { harness.cleanUp() }
        harness.register(a)
        // Batches of 8: 8 at the start, then 8, then the last 2.
        let (job, started) = try harness.startJob(sizes: Array(repeating: 1, count: 18))
        var effects = started
        for (step, expected) in [(1, 8), (2, 2)] {
            let request = try #require(effects.compactMap { if case .scan(let request) = $0 { request } else { nil } }.first)
            #expect(harness.core.jobs[job]?.scanComplete == false)
            #expect(request.firstIndex == harness.core.jobs[job]?.filesPlanned && request.firstIndex == step * 8)
            let batch = JobPreparer.nextBatch(of: try #require(request.walker), context: request.context, firstIndex: request.firstIndex, lastCreated: request.lastCreatedFolder)
            #expect(batch.files.count == expected && batch.finished == (expected == 2))
            effects = harness.handle(.scanned(job, batch), at: .milliseconds(step))
            #expect(harness.core.jobs[job]?.filesPlanned == step * 8 + expected)
        }
        #expect(harness.core.jobs[job]?.scanComplete == true)
        #expect(!effects.contains { if case .scan = $0 { true } else { false } }, "the walk is done: no further scan")
    }
}
