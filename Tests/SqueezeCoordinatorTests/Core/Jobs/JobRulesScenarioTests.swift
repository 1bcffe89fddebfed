import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Smaller rules of a job's life, through the whole core.
@Suite("CoordinatorCore: job rules")
struct JobRulesScenarioTests {
    @Test("job ids go on from the largest seen, a resumed job keeps its own, and the largest possible id does not trap")
    func jobIDs() {
        var harness = CoreHarness()
        #expect(harness.core.takeJobID(resuming: nil) == 1)
        #expect(harness.core.takeJobID(resuming: 41) == 41)
        #expect(harness.core.takeJobID(resuming: nil) == 42)
        harness.core.restore(nextJobID: 100, history: [])
        #expect(harness.core.takeJobID(resuming: nil) == 100)
        #expect(harness.core.takeJobID(resuming: JobID(.max)) == JobID(.max))
        #expect(harness.core.nextJobID == JobID(.max))
    }

    @Test("cancelling a job that is not running, or twice, does nothing more")
    func cancelTwice() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        #expect(harness.handle(.cancel(77, reason: "x", as: .cancelled), at: .zero).isEmpty)
        let (job, _) = try harness.startJob(sizes: [4096])
        let first = harness.handle(.cancel(job, reason: "first", as: .cancelled), at: .milliseconds(1))
        #expect(!first.writes.isEmpty)
        let second = harness.handle(.cancel(job, reason: "second", as: .failed), at: .milliseconds(2))
        #expect(second.writes.isEmpty && second.sent.isEmpty)
        #expect(harness.core.jobs[job]?.message == "first" && harness.core.jobs[job]?.state == .cancelled)
    }

    @Test("a client that asked for file events gets one per file published; others get none")
    func fileEvents() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (quiet, _) = try harness.startJob(sizes: [4096])
        let (loud, _) = try harness.startJob(sizes: [4096], fileEvents: true)
        for job in [quiet, loud] {
            let done = OutputWriter.Progress(key: FileKey(job: job, file: 0), rawBytes: 4096, outputBytes: 50, outputTotal: 70, finished: true)
            let effects = harness.handle(.written([.success(done)]), at: .milliseconds(5))
            let files = effects.events(of: job).flatMap { event -> [FileDone] in
                if case .filesDone(let batch) = event { return batch.files }
                return []
            }
            if job == loud {
                #expect(files.map(\.path) == ["f0"] && files.first?.bytesIn == 4096 && files.first?.bytesOut == 70)
            } else {
                #expect(files.isEmpty)
            }
        }
    }

    @Test("a job's last events are its last progress, then finished, then the end of its stream")
    func lastEventsInOrder() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096])
        harness.handle(.cancel(job, reason: "cancelled", as: .cancelled), at: .milliseconds(1))
        harness.handle(.writerDiscarded(job), at: .milliseconds(2))
        harness.handle(.writerDiscarded(job), at: .milliseconds(2))
        let end = harness.handle(.workspaceRemoved(job), at: .milliseconds(3))
        let kinds = end.compactMap { effect -> String? in
            switch effect {
            case .jobEvent(.progress, job): "progress"
            case .jobEvent(.finished, job): "finished"
            case .endJobEvents(job): "end"
            case .journal(.ended(job, _, _, _, _)): "journal"
            default: nil
            }
        }
        #expect(kinds == ["progress", "finished", "end", "journal"])
    }
}
