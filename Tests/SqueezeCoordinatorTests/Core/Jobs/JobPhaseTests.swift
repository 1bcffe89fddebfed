import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

@Suite("JobPhase: how a job ends")
struct JobPhaseTests {
    let start = ContinuousClock.now

    @Test("a completed job drops its items, waits for its discards, removes its workspace, then finishes")
    func completes() {
        var phase = JobPhase.running
        #expect(phase.complete(at: start, outstanding: true) == [.dropInFlight])
        #expect(phase == .completing(since: start))
        #expect(phase.state == .completed && !phase.isRunning && !phase.isFollowed)
        // Still outstanding a second later: nothing yet.
        #expect(phase.discardsAnswered(outstanding: true, at: start + .seconds(1)) == [])
        #expect(phase.discardsAnswered(outstanding: false, at: start + .seconds(2)) == [.removeWorkspace])
        #expect(phase == .removingWorkspace(.completed))
        // Once: a later answer asks for nothing more.
        #expect(phase.discardsAnswered(outstanding: false, at: start + .seconds(3)) == [])
        #expect(phase.workspaceRemoved() == [.finish])
        #expect(phase == .ended(.completed, workspaceRemoved: true))
    }

    @Test("with no discard outstanding the workspace goes at once")
    func completesAtOnce() {
        var phase = JobPhase.running
        #expect(phase.complete(at: start, outstanding: false) == [.dropInFlight, .removeWorkspace])
        #expect(phase == .removingWorkspace(.completed))
    }

    @Test("discards unanswered for the grace period do not hold the workspace for ever")
    func graceRunsOut() {
        var phase = JobPhase.running
        _ = phase.complete(at: start, outstanding: true)
        #expect(phase.discardsAnswered(outstanding: true, at: start + JobPhase.discardGrace) == [])
        #expect(phase.discardsAnswered(outstanding: true, at: start + JobPhase.discardGrace + .milliseconds(1)) == [.removeWorkspace])
    }

    @Test("a cancelled job reports finished only after every writer partition discarded and the workspace is gone")
    func cancelWaitsForEveryWriter() {
        var phase = JobPhase.running
        #expect(phase.cancel(as: .cancelled, writers: 3) == [.dropInFlight, .discardInWriters])
        #expect(phase.isFollowed && !phase.isRunning && phase.state == .cancelled)
        #expect(phase.writerDiscarded() == [])
        #expect(phase.writerDiscarded() == [])
        #expect(phase.workspaceRemoved() == [], "no workspace removal was asked for yet")
        #expect(phase.writerDiscarded() == [.removeWorkspace])
        #expect(!phase.isFollowed)
        #expect(phase.writerDiscarded() == [], "a fourth answer changes nothing")
        #expect(phase.workspaceRemoved() == [.finish])
        #expect(phase == .ended(.cancelled, workspaceRemoved: true))
    }

    @Test("without writers (the coordinator not running) a cancel removes the workspace at once")
    func cancelWithoutWriters() {
        var phase = JobPhase.running
        #expect(phase.cancel(as: .failed, writers: 0) == [.dropInFlight, .removeWorkspace])
        #expect(phase.workspaceRemoved() == [.finish])
        #expect(phase.state == .failed)
    }

    @Test("only a running job can complete or be cancelled")
    func onlyFromRunning() {
        var cancelled = JobPhase.running
        _ = cancelled.cancel(as: .cancelled, writers: 1)
        #expect(cancelled.complete(at: start, outstanding: false) == [])
        #expect(cancelled.cancel(as: .failed, writers: 1) == [])
        #expect(cancelled.state == .cancelled)
        var completing = JobPhase.running
        _ = completing.complete(at: start, outstanding: true)
        #expect(completing.cancel(as: .cancelled, writers: 2) == [])
        #expect(completing.writerDiscarded() == [])
        #expect(completing == .completing(since: start))
    }

    @Test("stopping fails a running job and ends every phase at once, leaving the workspace to the end of run")
    func stop() {
        var running = JobPhase.running
        #expect(running.stop() == [.dropInFlight, .discardInWriters, .finish])
        #expect(running == .ended(.failed, workspaceRemoved: false))
        var cancelling = JobPhase.running
        _ = cancelling.cancel(as: .cancelled, writers: 2)
        #expect(cancelling.stop() == [.finish])
        #expect(cancelling == .ended(.cancelled, workspaceRemoved: false))
        var completing = JobPhase.running
        _ = completing.complete(at: start, outstanding: true)
        #expect(completing.stop() == [.finish])
        #expect(completing.state == .completed)
        #expect(completing.stop() == [], "an ended job stays ended")
        // A writer's late answer after the stop finds nothing to do.
        #expect(cancelling.writerDiscarded() == [] && cancelling.workspaceRemoved() == [])
    }
}
