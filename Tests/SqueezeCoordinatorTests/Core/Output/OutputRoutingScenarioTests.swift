import Foundation
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Where accepted blocks go, through the whole core: each output belongs to one writer
/// partition, which gets every block of it; what a writer reports moves the job on.
@Suite("CoordinatorCore: output routing")
struct OutputRoutingScenarioTests {
    @Test("a remote worker's blocks of a multi-block file all go to the partition that owns the file, which joins it")
    func multiBlockToOwner() throws {
        var harness = CoreHarness(writers: 3)
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        let (job, started) = try harness.startJob(sizes: [3 * 4096])
        let owner = try #require(harness.core.writerPartition(of: FileKey(job: job, file: 0)))
        var partitions: [Int] = []
        var indices: [Int] = []
        for dispatch in started.dispatches {
            let effects = harness.handle(.workerMessage(CoreHarness.answer(dispatch), from: a, origin: nil), at: .milliseconds(1))
            for write in effects.writes {
                guard case .blocks(let files) = write.command else { continue }
                partitions.append(write.partition)
                indices += files.flatMap { $0.blocks.map(\.index) }
            }
        }
        #expect(Set(partitions) == [owner])
        #expect(indices.sorted() == [0, 1, 2])
        #expect(harness.core.jobs[job]?.filesJoinedByWriter == 1)
    }

    @Test("a bundle's one-block members from a shared-storage worker go to their writers as one command per partition")
    func membersPerPartition() throws {
        // Items of 16 KiB: four 1 KiB files travel in one item.
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        var harness = CoreHarness(configuration, writers: 2)
        defer { harness.cleanUp() }
        harness.register(a, slots: 4, storage: .shared)
        let (job, started) = try harness.startJob(sizes: [1024, 1024, 1024, 1024])
        let work = try #require(started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }.first)
        #expect(work.blocks.count == 4)
        let answer = RefResult(jobID: job.value, itemID: work.itemID, attempt: work.attempt,
                               pieces: work.blocks.map { _ in PieceReport(crc: 0, rawLength: 1024, pieceLength: 100) })
        let effects = harness.handle(.workerMessage(.resultRef(answer), from: a, origin: nil), at: .milliseconds(1))
        let members = effects.writes.compactMap { if case .members(let list) = $0.command { ($0.partition, list.count) } else { nil } }
        let expected = Dictionary(grouping: 0..<4) { harness.core.writerPartition(of: FileKey(job: job, file: $0)) ?? -1 }.mapValues(\.count)
        #expect(members.count == expected.count, "one command per partition")
        for (partition, count) in members { #expect(expected[partition] == count) }
    }

    @Test("a file that fails is dropped by its writer and told to the clients; the rest of its bundle goes on")
    func fileFails() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        let (job, started) = try harness.startJob(sizes: [4096, 4096])
        let failure = WriteFailure(key: FileKey(job: job, file: 0), reason: "disk full")
        let effects = harness.handle(.written([.failure(failure)]), at: .milliseconds(1))
        #expect(effects.writes.contains { if case .discardFile(let key) = $0.command { key == FileKey(job: job, file: 0) } else { false } })
        #expect(effects.events(of: job).contains { if case .fileFailed(let note) = $0 { note.reason == "disk full" } else { false } })
        #expect(harness.core.jobs[job]?.phase == .running, "the other file is still open")
        #expect(started.dispatches.count == 2)
    }

    @Test("a writer failure of the journal fails the whole job")
    func journalFailure() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [4096, 4096])
        var failure = WriteFailure(key: FileKey(job: job, file: 0), reason: "journal: disk I/O error")
        failure.journal = true
        harness.handle(.written([.failure(failure)]), at: .milliseconds(1))
        #expect(harness.core.jobs[job]?.phase == .cancelling(.failed, writersLeft: 2))
        #expect(harness.core.jobs[job]?.message == "journal: disk I/O error")
    }

    @Test("a reader that cannot read a file fails that file; the item goes again with what is left")
    func readFailure() throws {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        var harness = CoreHarness(configuration)
        defer { harness.cleanUp() }
        harness.register(a, slots: 4)
        let (job, started) = try harness.startJob(sizes: [1024, 1024])
        let dispatch = try #require(started.dispatches.first)
        #expect(dispatch.blocks.count == 2)
        let failed = harness.handle(.readFailed(dispatch, ReadFailures(files: [(0, "changed since the scan")])), at: .milliseconds(1))
        #expect(failed.events(of: job).contains { if case .fileFailed(let note) = $0 { note.reason == "changed since the scan" } else { false } })
        let again = try #require(failed.dispatches.first)
        #expect(again.item == dispatch.item && again.blocks.map(\.ref.file) == [1])
    }
}
