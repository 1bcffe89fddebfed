import SqueezeGzip
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// The whole core driven by events at fixed instants: no sockets, no tasks, no sleeps.
@Suite("CoordinatorCore: events in, effects out")
struct CoordinatorCoreTests {
    let second = Duration.seconds(1)

    @Test("a worker silent for three heartbeats is declared dead; its items go to the worker left")
    func silentWorkerDeclaredDead() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        harness.register(b)
        let (job, effects) = try harness.startJob(sizes: [4096, 4096, 4096, 4096])
        let first = effects.dispatches
        #expect(first.count == 4, "two items each: credit 2 per slot")
        let heldByA = Set(first.filter { $0.routingID == a }.map(\.item))
        let heldByB = first.filter { $0.routingID == b }
        #expect(heldByA.count == 2 && heldByB.count == 2)
        // b keeps talking; a says nothing. Ticks every second from the first.
        for tick in 0...3 {
            harness.handle(.workerMessage(.heartbeat, from: b, origin: nil), at: second * tick)
            let effects = harness.handle(.tick, at: second * tick)
            #expect(harness.core.workers[a] != nil, "three periods silent is not yet dead (tick \(tick))")
            #expect(effects.dispatches.isEmpty)
        }
        let death = harness.handle(.tick, at: second * 4)
        #expect(harness.core.workers[a] == nil)
        #expect(death.dispatches.isEmpty, "b's credit is full until it answers")
        // b answers its two: a's two items go to b.
        var again: [Dispatch] = []
        for dispatch in heldByB {
            again += harness.handle(.workerMessage(CoreHarness.answer(dispatch), from: b, origin: nil), at: second * 4).dispatches
        }
        #expect(again.allSatisfy { $0.routingID == b && $0.job == job })
        #expect(Set(again.map(\.item)) == heldByA)
    }

    @Test("a cancelled job reports finished only after every writer partition discarded its temporaries and the workspace is gone")
    func cancelWaitsForWriters() throws {
        var harness = CoreHarness(writers: 3)
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, started) = try harness.startJob(sizes: [4096, 4096])
        let held = started.dispatches
        #expect(!held.isEmpty)
        let cancel = harness.handle(.cancel(job, reason: "cancelled", as: .cancelled), at: second)
        #expect(cancel.sent.contains { if case .cancelJob(job.value) = $0.message { $0.peer == a } else { false } })
        let discards = cancel.writes.filter { if case .discardJob(job) = $0.command { true } else { false } }
        #expect(discards.map(\.partition).sorted() == [0, 1, 2])
        #expect(cancel.finished(job) == nil)
        #expect(harness.handle(.writerDiscarded(job), at: second).finished(job) == nil)
        #expect(harness.handle(.writerDiscarded(job), at: second).isEmpty)
        let last = harness.handle(.writerDiscarded(job), at: second * 2)
        #expect(last.finished(job) == nil)
        #expect(last.writes.contains { if case .removeWorkspace(job, _) = $0.command { $0.partition == 0 } else { false } })
        let end = harness.handle(.workspaceRemoved(job), at: second * 2)
        #expect(end.finished(job)?.state == .cancelled)
        #expect(end.contains { if case .endJobEvents(job) = $0 { true } else { false } })
        #expect(harness.core.jobs[job] == nil && harness.core.finishedJobs.first?.jobID == job.value)
        // An answer that arrives after the end is late, not malformed.
        _ = harness.handle(.workerMessage(CoreHarness.answer(held[0]), from: a, origin: nil), at: second * 3)
        #expect(harness.core.lateResults == 1 && harness.core.malformedMessages == 0)
    }

    @Test("an answer whose block length differs from the plan is refused, and its item never goes back to that worker")
    func lengthMismatchGoesElsewhere() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        let (_, started) = try harness.startJob(sizes: [4096])
        let item = try #require(started.dispatches.first)
        #expect(item.routingID == a)
        harness.register(b, at: .milliseconds(10))
        let refused = harness.handle(.workerMessage(CoreHarness.answer(item, lengthening: 1), from: a, origin: nil), at: .milliseconds(20))
        #expect(harness.core.malformedMessages == 1)
        #expect(refused.dispatches.map(\.routingID) == [b])
        #expect(refused.dispatches.map(\.item) == [item.item])
        // b fails it too: with no other worker left that has not, its file fails rather than going back to a.
        let failed = harness.handle(.workerMessage(.itemFailed(ItemFailure(jobID: item.job.value, itemID: item.item.value, reason: "no")), from: b, origin: nil),
                                    at: .milliseconds(30))
        #expect(failed.dispatches.isEmpty)
        #expect(failed.events(of: item.job).contains { if case .fileFailed = $0 { true } else { false } })
    }

    @Test("a job whose client stops heartbeating is cancelled once the client's deadline passes")
    func silentClient() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let client: PeerID = "client"
        harness.register(a)
        // 500 ms heartbeats, liveness 3: silent for more than 1.5 s.
        let (job, _) = try harness.startJob(sizes: [4096], owner: client, heartbeatMilliseconds: 500)
        harness.handle(.clientHeard(client), at: second)
        harness.handle(.tick, at: .zero)
        #expect(harness.handle(.tick, at: second * 2).writes.isEmpty)
        #expect(harness.core.jobs[job]?.phase == .running)
        let cancelled = harness.handle(.tick, at: second * 3)
        #expect(harness.core.jobs[job]?.phase == .cancelling(.cancelled, writersLeft: 2))
        #expect(harness.core.jobs[job]?.message == "the client stopped responding")
        #expect(cancelled.writes.filter { if case .discardJob(job) = $0.command { true } else { false } }.count == 2)
    }

    @Test("the first result wins; a second one, from the same worker or another, is late")
    func firstResultWins() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (_, started) = try harness.startJob(sizes: [4096, 4096, 4096])
        let item = try #require(started.dispatches.first)
        let accepted = harness.handle(.workerMessage(CoreHarness.answer(item), from: a, origin: nil), at: .milliseconds(5))
        let blocks = accepted.writes.filter { if case .blocks = $0.command { true } else { false } }
        #expect(blocks.count == 1, "one command to the writer owning the output")
        harness.register(b, at: .milliseconds(6))
        let again = harness.handle(.workerMessage(CoreHarness.answer(item), from: a, origin: nil), at: .milliseconds(7))
        let other = harness.handle(.workerMessage(CoreHarness.answer(item), from: b, origin: nil), at: .milliseconds(8))
        #expect(harness.core.lateResults == 2 && harness.core.malformedMessages == 0)
        #expect(again.writes.isEmpty && other.writes.isEmpty)
    }

    @Test("a job completes when its writers report every file published: workspace removed, then finished")
    func completes() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        let (job, started) = try harness.startJob(sizes: [4096, 4096])
        #expect(started.dispatches.count == 2)
        for dispatch in started.dispatches {
            harness.handle(.workerMessage(CoreHarness.answer(dispatch), from: a, origin: nil), at: .milliseconds(5))
        }
        var flushes: [Int] = []
        for file in 0..<2 {
            let progress = OutputWriter.Progress(key: FileKey(job: job, file: file), rawBytes: 4096, outputBytes: 100, outputTotal: 120,
                                                 finished: false, sealed: true, blocks: 0..<1)
            let sealed = harness.handle(.written([.success(progress)]), at: .milliseconds(10))
            #expect(sealed.finished(job) == nil)
            flushes.append(sealed.writes.filter { if case .flush = $0.command { true } else { false } }.count)
        }
        // Once only a flush stands between the job and its end, it goes at once, not a tick later.
        // Every partition holding one of its outputs flushes (two files, two partitions here).
        let partitions = Set((0..<2).compactMap { harness.core.writerPartition(of: FileKey(job: job, file: $0)) })
        #expect(flushes == [0, partitions.count])
        var last: [CoordinatorEffect] = []
        for file in 0..<2 {
            let published = OutputWriter.Progress(key: FileKey(job: job, file: file), rawBytes: 0, outputBytes: 0, outputTotal: 120, finished: true)
            last = harness.handle(.written([.success(published)]), at: .milliseconds(250))
        }
        #expect(harness.core.jobs[job]?.phase == .removingWorkspace(.completed))
        #expect(last.sent.contains { if case .cancelJob(job.value) = $0.message { true } else { false } } == false, "a holds nothing more")
        #expect(last.writes.contains { if case .removeWorkspace(job, _) = $0.command { true } else { false } })
        let end = harness.handle(.workspaceRemoved(job), at: .milliseconds(260))
        let summary = try #require(end.finished(job))
        #expect(summary.state == .completed && summary.filesCompressed == 2 && summary.bytesIn == 8192)
    }

    @Test("heartbeats go only to workers sent nothing for a period; liveness is judged once a period")
    func heartbeats() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        harness.register(b, at: .milliseconds(600))
        let early = harness.handle(.tick, at: .milliseconds(800))
        #expect(early.sent.filter { if case .heartbeat = $0.message { true } else { false } }.isEmpty)
        let due = harness.handle(.tick, at: .milliseconds(1000))
        #expect(due.sent.compactMap { if case .heartbeat = $0.message { $0.peer } else { nil } } == [a])
        let both = harness.handle(.tick, at: .milliseconds(2000))
        #expect(both.sent.compactMap { if case .heartbeat = $0.message { $0.peer } else { nil } } == [a, b])
    }

    @Test("a registration with out-of-range slots is refused with an error, and a taken worker id too")
    func refusedRegistrations() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let refused = harness.register(a, slots: 0)
        #expect(harness.core.workers.isEmpty && harness.core.malformedMessages == 1)
        #expect(refused.sent.contains { if case .error = $0.message { $0.peer == a } else { false } })
        harness.register(b)
        let clash = harness.handle(.workerMessage(.workerReady(WorkerHello(workerID: "b", host: "h", slots: 1, pid: 2)), from: c, origin: nil), at: .zero)
        #expect(harness.core.workers.count == 1 && harness.core.workers[c] == nil)
        #expect(clash.sent.contains { if case .error(let reply) = $0.message { $0.peer == c && reply.message.contains("already in use") } else { false } })
    }
}
