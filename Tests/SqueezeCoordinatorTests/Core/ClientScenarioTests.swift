import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Clients following, attaching to and losing jobs, through the whole core.
@Suite("CoordinatorCore: clients")
struct ClientScenarioTests {
    let client: PeerID = "client"
    let watcher: PeerID = "watcher"

    @Test("attaching: a running job gives where it stands, asking again gives no second stream, an ended job gives its summary")
    func attach() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096])
        guard case .following(let accepted, let first) = try harness.core.attach(AttachRequest(jobID: job.value), client: watcher) else {
            Issue.record("not following")
            return
        }
        #expect(accepted.jobID == job.value)
        #expect(first.count == 2)
        if case .started(let start) = first.first { #expect(start.jobID == job.value) } else { Issue.record("no started first") }
        guard case .already = try harness.core.attach(AttachRequest(jobID: job.value), client: watcher) else {
            Issue.record("a second stream for the same client")
            return
        }
        #expect(harness.core.follows(job, watcher))
        #expect(throws: CoordinatorError.self) { try harness.core.attach(AttachRequest(jobID: 77), client: watcher) }
        #expect(throws: CoordinatorError.self) { try harness.core.attach(AttachRequest(jobID: job.value, heartbeatMilliseconds: 1), client: watcher) }
        harness.handle(.cancel(job, reason: "cancelled", as: .cancelled), at: .milliseconds(1))
        #expect(harness.core.follows(job, watcher), "followed until its finished")
        harness.handle(.writerDiscarded(job), at: .milliseconds(2))
        harness.handle(.writerDiscarded(job), at: .milliseconds(3))
        harness.handle(.workspaceRemoved(job), at: .milliseconds(4))
        #expect(!harness.core.follows(job, watcher))
        guard case .ended(_, let summary) = try harness.core.attach(AttachRequest(jobID: job.value), client: watcher) else {
            Issue.record("no summary for an ended job")
            return
        }
        #expect(summary.state == .cancelled)
    }

    @Test("a watcher's silence cancels nothing; an owner that attaches takes the job over and its silence cancels it")
    func ownerTakesOver() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096])
        _ = try harness.core.attach(AttachRequest(jobID: job.value), client: watcher)
        for second in 0...5 {
            harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(second))
            harness.handle(.tick, at: .seconds(second))
        }
        #expect(harness.core.jobs[job]?.phase == .running)
        harness.core.advance(to: harness.time(.seconds(5)))
        _ = try harness.core.attach(AttachRequest(jobID: job.value, heartbeatMilliseconds: 500, owner: true), client: client)
        harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(6))
        harness.handle(.tick, at: .seconds(6))
        #expect(harness.core.jobs[job]?.phase == .running, "1 s of silence is within 1.5 s")
        harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(7))
        harness.handle(.tick, at: .seconds(7))
        #expect(harness.core.jobs[job]?.phase.isRunning == false)
    }

    @Test("a client that disconnects has its jobs cancelled; one that only falls behind loses its events and its jobs too")
    func clientSendFailed() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (first, _) = try harness.startJob(sizes: [4096], owner: client)
        let (second, _) = try harness.startJob(sizes: [4096], owner: watcher)
        let lost = harness.handle(.clientSendFailed(client, ZMQErrorFixture.hostUnreachable), at: .milliseconds(1))
        #expect(harness.core.jobs[first]?.message == "the client disconnected")
        #expect(lost.writes.contains { if case .discardJob(first) = $0.command { true } else { false } })
        #expect(harness.core.clientsHeard[client] == nil)
        harness.handle(.clientSendFailed(watcher, ZMQErrorFixture.wouldBlock), at: .milliseconds(2))
        #expect(harness.core.jobs[second]?.message == "the client could not keep up with the job's events")
    }
}
