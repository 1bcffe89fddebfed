import CoreMetrics
import Foundation
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Publishing by workers: the worker whose attempt was accepted is granted its whole members
/// in one `publish` and renames them itself; one that leaves or is late has a writer publish
/// the same attempt instead, and never another.
@Suite("CoordinatorCore: publishing by workers")
struct PublishingScenarioTests {
    /// A harness with items of 16 KiB (four 1 KiB files travel in one), worker `a` shared and
    /// able to publish, and a job of four such files whose item went to `a`.
    private static func grantedBundle(
        metrics: any MetricsFactory = NOOPMetricsHandler.instance, _ configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) throws -> (harness: CoreHarness, job: JobID, work: RefAssignment, effects: [CoordinatorEffect]) {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        configure(&configuration)
        var harness = CoreHarness(configuration, writers: 2, metrics: metrics)
        harness.register(a, slots: 4, storage: .shared, capabilities: [WorkerHello.publishCapability])
        let (job, started) = try harness.startJob(sizes: [1024, 1024, 1024, 1024])
        let work = try #require(started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }.first)
        let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt,
                               pieces: work.blocks.map { _ in PieceReport(crc: 7, rawLength: 1024, pieceLength: 100) })
        let effects = harness.handle(.workerMessage(.resultRef(answer), from: a, origin: nil), at: .milliseconds(1))
        return (harness, job, work, effects)
    }

    private static func grants(in effects: [CoordinatorEffect]) -> [(grant: PublishGrant, peer: PeerID)] {
        effects.sent.compactMap { if case .publish(let grant) = $0.message { (grant, $0.peer) } else { nil } }
    }

    private static func takenOver(in effects: [CoordinatorEffect]) -> [(spec: OutputSpec, piece: PieceBlock)] {
        effects.writes.flatMap { write -> [(spec: OutputSpec, piece: PieceBlock)] in
            if case .takeOver(let list) = write.command { return list }
            return []
        }
    }

    @Test("the worker whose answer is accepted is granted its bundle's members in one publish; its answer finishes the files")
    func grantedAndPublished() throws {
        var (harness, job, work, effects) = try Self.grantedBundle()
        defer { harness.cleanUp() }
        let grants = Self.grants(in: effects)
        #expect(grants.count == 1)
        let grant = try #require(grants.first)
        #expect(grant.peer == a)
        #expect(grant.grant.itemID == work.itemID && grant.grant.attempt == work.attempt)
        #expect(grant.grant.members.map(\.position) == [0, 1, 2, 3])
        let destination = try #require(harness.core.jobs[job]?.destination)
        #expect(Set(grant.grant.members.map { BytePath(bytes: $0.output) })
                == Set((0..<4).map { BytePath(bytes: destination.appending(BytePath("f\($0)")).bytes + Array(".gz".utf8)) }))
        #expect(grant.grant.workspace == harness.core.jobs[job]?.workspace.path.bytes)
        #expect(effects.writes.allSatisfy { if case .members = $0.command { false } else { true } }, "no writer touches them")
        #expect(harness.core.jobs[job]?.filesFinished == 0, "nothing is done before the worker says so")

        let report = PublishReport(jobID: job.value, itemID: work.itemID, attempt: work.attempt, failures: [])
        let done = harness.handle(.workerMessage(.published(report), from: a, origin: nil), at: .milliseconds(2))
        let ended = harness.core.jobs[job]
        #expect(ended == nil || ended?.filesFinished == 4)
        #expect(ended == nil || ended?.bytesOut == 400)
        #expect(ended?.phase != .running, "every file is done: the job is on its way out")
        #expect(done.writes.allSatisfy { if case .takeOver = $0.command { false } else { true } })
    }

    @Test("a member the worker could not publish fails alone, with its reason")
    func oneMemberFails() throws {
        var (harness, job, work, _) = try Self.grantedBundle()
        defer { harness.cleanUp() }
        let report = PublishReport(jobID: job.value, itemID: work.itemID, attempt: work.attempt,
                                   failures: [PublishFailure(position: 2, reason: "output exists")])
        let effects = harness.handle(.workerMessage(.published(report), from: a, origin: nil), at: .milliseconds(2))
        let failed = effects.events(of: job).compactMap { if case .fileFailed(let note) = $0 { note } else { nil } }
        #expect(failed.map(\.reason) == ["output exists"])
        #expect(failed.first?.path == "f\(work.blocks[2].file)")
        #expect(harness.core.jobs[job].map { $0.filesFinished == 4 && $0.failed.count == 1 } ?? true)
    }

    @Test("failures named at positions the grant does not hold change nothing: the granted members are counted, never below zero")
    func failuresOutsideTheGrant() throws {
        let metrics = CountingMetrics()
        var (harness, job, work, _) = try Self.grantedBundle(metrics: metrics)
        defer { harness.cleanUp() }
        let report = PublishReport(jobID: job.value, itemID: work.itemID, attempt: work.attempt, failures: [
            PublishFailure(position: 1, reason: "gone"), PublishFailure(position: 100, reason: "x"), PublishFailure(position: 200, reason: "x"),
            PublishFailure(position: 300, reason: "x"), PublishFailure(position: 400, reason: "x"),
        ])
        let effects = harness.handle(.workerMessage(.published(report), from: a, origin: nil), at: .milliseconds(2))
        #expect(effects.events(of: job).filter { if case .fileFailed = $0 { true } else { false } }.count == 1)
        #expect(metrics.negativeIncrements.isEmpty, "\(metrics.negativeIncrements)")
        #expect(metrics.total("squeeze_outputs_published_by_workers_total") == 3)
    }

    @Test("a worker that leaves holding a grant has a writer publish the same attempt; its late answer counts for nothing")
    func leaverTakenOver() throws {
        var (harness, job, work, _) = try Self.grantedBundle()
        defer { harness.cleanUp() }
        let gone = harness.handle(.workerMessage(.goodbye, from: a, origin: nil), at: .milliseconds(2))
        let members = Self.takenOver(in: gone)
        #expect(members.count == 4)
        #expect(members.allSatisfy { $0.piece.attempt.value == work.attempt && $0.piece.item.value == work.itemID })
        #expect(Set(members.map(\.piece.path)).count == 4)
        #expect(gone.sent.allSatisfy { if case .publish = $0.message { false } else { true } }, "no other worker is granted it")
        #expect(gone.dispatches.isEmpty && gone.sent.allSatisfy { if case .workRef = $0.message { false } else { true } },
                "the item is not compressed again")

        // It comes back and answers after all: the grant is gone, the files stay the writers'.
        harness.register(a, slots: 4, storage: .shared, capabilities: [WorkerHello.publishCapability], at: .milliseconds(3))
        let late = harness.core.lateResults
        let report = PublishReport(jobID: job.value, itemID: work.itemID, attempt: work.attempt, failures: [])
        harness.handle(.workerMessage(.published(report), from: a, origin: nil), at: .milliseconds(4))
        #expect(harness.core.lateResults == late + 1)
        #expect(harness.core.jobs[job]?.filesFinished == 0, "only the writers' reports finish them now")
    }

    @Test("a grant not answered within the deadline goes to the writers, once")
    func lateGrantTakenOver() throws {
        var (harness, job, _, _) = try Self.grantedBundle { $0.publishDeadline = .seconds(2) }
        defer { harness.cleanUp() }
        var members: [(spec: OutputSpec, piece: PieceBlock)] = []
        for tenth in stride(from: 5, through: 40, by: 5) {
            let at = Duration.milliseconds(tenth * 100)
            harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: at)
            let effects = harness.handle(.tick, at: at)
            members += Self.takenOver(in: effects)
            if tenth < 20 { #expect(members.isEmpty, "taken over at \(at), before the deadline") }
        }
        #expect(members.count == 4)
        #expect(harness.core.jobs[job]?.grants.isEmpty == true)
    }

    @Test("an answer from a worker that was not granted the item is refused and the grant stands")
    func wrongWorker() throws {
        var (harness, job, work, _) = try Self.grantedBundle()
        defer { harness.cleanUp() }
        harness.register(b, slots: 1, storage: .shared, capabilities: [WorkerHello.publishCapability], at: .milliseconds(2))
        let malformed = harness.core.malformedMessages
        let report = PublishReport(jobID: job.value, itemID: work.itemID, attempt: work.attempt, failures: [])
        harness.handle(.workerMessage(.published(report), from: b, origin: nil), at: .milliseconds(3))
        #expect(harness.core.malformedMessages == malformed + 1)
        let other = PublishReport(jobID: job.value, itemID: work.itemID, attempt: work.attempt + 1, failures: [])
        harness.handle(.workerMessage(.published(other), from: a, origin: nil), at: .milliseconds(4))
        #expect(harness.core.malformedMessages == malformed + 2)
        #expect(harness.core.jobs[job]?.grants.count == 1)
        #expect(harness.core.jobs[job]?.filesFinished == 0)
    }

    @Test("with publishing by workers off, the members go to the writers as before")
    func turnedOff() throws {
        let (harness, _, _, effects) = try Self.grantedBundle { $0.workersPublish = false }
        defer { harness.cleanUp() }
        #expect(Self.grants(in: effects).isEmpty)
        let members = effects.writes.flatMap { write -> [(spec: OutputSpec, piece: PieceBlock)] in
            if case .members(let list) = write.command { return list }
            return []
        }
        #expect(members.count == 4)
    }

    @Test("with a journal the members are recorded before the grant leaves, without an inode; a record that fails fails them and the job")
    func journaledFirst() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-grant-journal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let journal = try Journal(path: folder + "/journal.sqlite")
        for outcome in ["recorded", "refused"] {
            var (harness, job, work, effects) = try Self.grantedBundle { $0.journal = journal }
            defer { harness.cleanUp() }
            #expect(Self.grants(in: effects).isEmpty, "nothing is granted before the journal has it")
            let records = effects.compactMap { effect -> (ItemKey, [PublishedFile])? in
                if case .journal(.granted(let keys, let files)) = effect, keys.count == 1, let key = keys.first { return (key, files) }
                return nil
            }
            let (key, files) = try #require(records.first)
            #expect(records.count == 1 && key == ItemKey(job: job, item: ItemID(work.itemID)))
            #expect(files.count == 4 && files.allSatisfy { $0.outputInode == 0 && $0.crc == 7 && $0.outputSize == 100 && $0.job == job.value })
            if outcome == "recorded" {
                let sent = harness.handle(.grantsRecorded([key], failure: nil), at: .milliseconds(2))
                #expect(Self.grants(in: sent).map(\.grant.attempt) == [work.attempt])
                let again = harness.handle(.grantsRecorded([key], failure: nil), at: .milliseconds(3))
                #expect(Self.grants(in: again).isEmpty, "granted once")
            } else {
                let failed = harness.handle(.grantsRecorded([key], failure: "journal: disk full"), at: .milliseconds(2))
                #expect(Self.grants(in: failed).isEmpty)
                #expect(failed.events(of: job).filter { if case .fileFailed = $0 { true } else { false } }.count == 4)
                #expect(harness.core.jobs[job]?.phase.isRunning == false, "the job fails naming the journal")
                #expect(harness.core.jobs[job]?.message == "journal: disk full")
            }
        }
    }
}
