import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// How jobs end, through the whole core: shutdown, no writers, discards of stitched pieces.
@Suite("CoordinatorCore: how jobs end")
struct JobEndingScenarioTests {
    @Test("stopping fails a running job at once: its items are dropped, every writer discards, its clients get finished")
    func stop() throws {
        var harness = CoreHarness(writers: 2)
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096])
        harness.core.advance(to: harness.time(.milliseconds(5)))
        harness.core.stop(reason: "coordinator shutting down")
        let effects = harness.core.takeEffects()
        #expect(effects.sent.contains { if case .cancelJob(job.value) = $0.message { $0.peer == a } else { false } })
        #expect(effects.writes.filter { if case .discardJob(job) = $0.command { true } else { false } }.count == 2)
        let summary = try #require(effects.finished(job))
        #expect(summary.state == .failed && summary.message == "coordinator shutting down")
        #expect(harness.core.leftWorkspaces.count == 1, "its workspace is left to the end of run")
        #expect(harness.core.stopping && harness.core.jobs.isEmpty)
    }

    @Test("a coordinator that is not running has no writers: a cancel removes the workspace at once and finishes the job")
    func noWriters() throws {
        var harness = CoreHarness(writers: 0)
        defer { harness.cleanUp() }
        let (job, _) = try harness.startJob(sizes: [4096])
        let effects = harness.handle(.cancel(job, reason: "cancelled", as: .cancelled), at: .milliseconds(1))
        #expect(effects.contains { if case .removeWorkspace = $0 { true } else { false } })
        #expect(effects.finished(job)?.state == .cancelled)
        #expect(harness.core.leftWorkspaces.isEmpty)
    }

    @Test("a tree that fits in the first batch asks for no further scan: its walk is complete at once")
    func oneBatchTree() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 8)
        let (job, started) = try harness.startJob(sizes: [4096])
        // A one-batch tree: the first batch was all of it, so no scan is asked for.
        #expect(!started.contains { if case .scan = $0 { true } else { false } })
        #expect(harness.core.jobs[job]?.scanComplete == true)
    }

    @Test("a completed job whose stitcher never answers its discard removes the workspace once the grace is over")
    func discardGrace() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        let (job, _) = try harness.startJob(sizes: [4096])
        // The job completes with a discard still out to a.
        harness.core.jobs[job]?.freeing[a] = 1
        let key = FileKey(job: job, file: 0)
        harness.handle(.written([.success(OutputWriter.Progress(key: key, rawBytes: 4096, outputBytes: 10, outputTotal: 30, finished: true))]),
                       at: .milliseconds(10))
        #expect(harness.core.jobs[job]?.phase == .completing(since: harness.time(.milliseconds(10)).instant))
        for second in 1...10 {
            harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(second))
            let effects = harness.handle(.tick, at: .seconds(second))
            #expect(!effects.writes.contains { if case .removeWorkspace = $0.command { true } else { false } }, "within the grace (\(second) s)")
        }
        harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(11))
        let over = harness.handle(.tick, at: .seconds(11))
        #expect(over.writes.contains { if case .removeWorkspace(job, _) = $0.command { true } else { false } })
    }

    @Test("a completed job's workspace goes as soon as the stitcher answers its discard")
    func discardAnswered() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        let (job, _) = try harness.startJob(sizes: [4096])
        harness.core.jobs[job]?.freeing[a] = 1
        harness.handle(.written([.success(OutputWriter.Progress(key: FileKey(job: job, file: 0), rawBytes: 4096, outputBytes: 10, outputTotal: 30, finished: true))]),
                       at: .milliseconds(10))
        let answered = harness.handle(.workerMessage(.discarded(job.value), from: a, origin: nil), at: .milliseconds(20))
        #expect(answered.writes.contains { if case .removeWorkspace(job, _) = $0.command { true } else { false } })
    }

    @Test("a discard answer from a worker that was not asked frees nothing; the asked one's does")
    func discardFromOther() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        harness.register(b)
        let (job, _) = try harness.startJob(sizes: [4096])
        harness.core.jobs[job]?.freeing[a] = 1
        harness.handle(.written([.success(OutputWriter.Progress(key: FileKey(job: job, file: 0), rawBytes: 4096, outputBytes: 10, outputTotal: 30, finished: true))]),
                       at: .milliseconds(10))
        let other = harness.handle(.workerMessage(.discarded(job.value), from: b, origin: nil), at: .milliseconds(20))
        #expect(!other.writes.contains { if case .removeWorkspace = $0.command { true } else { false } })
        #expect(harness.core.jobs[job]?.freeing[a] == 1)
        let asked = harness.handle(.workerMessage(.discarded(job.value), from: a, origin: nil), at: .milliseconds(30))
        #expect(asked.writes.contains { if case .removeWorkspace(job, _) = $0.command { true } else { false } })
    }

    @Test("progress goes to a job's clients at most once per progress interval, and only when something moved")
    func progressThrottled() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096, 4096])
        func progress(_ effects: [CoordinatorEffect]) -> Int {
            effects.events(of: job).filter { if case .progress = $0 { true } else { false } }.count
        }
        #expect(progress(harness.handle(.tick, at: .milliseconds(100))) == 0, "sooner than the interval")
        #expect(progress(harness.handle(.tick, at: .milliseconds(200))) == 1)
        #expect(progress(harness.handle(.tick, at: .milliseconds(400))) == 0, "nothing moved")
    }
}
