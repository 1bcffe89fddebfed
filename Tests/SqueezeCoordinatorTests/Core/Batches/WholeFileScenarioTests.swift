import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Whole files in batches: a worker that announced `wholeFiles` scans with files of up to
/// `wholeFileBytes` in its batch, cut into the job's blocks, so such a file costs the
/// coordinator nothing of its own; its batch is checked only by a verifier that can, and a
/// batch that leaves the batch path plans its whole files afresh, as any multi-block file.
@Suite("CoordinatorCore: whole files in batches")
struct WholeFileScenarioTests {
    /// Four blocks of the harness's 4 KiB.
    static let wholeFileBytes = 4 * 4096

    /// A `wholeFiles` job whose folder `sub` a worker listed as a batch of `small`, its pieces
    /// to follow in a `resultRef`: the scan (its item is the batch's) and its worker.
    private static func subListed(_ small: [BatchFile]) throws -> (harness: CoreHarness, job: JobID, scan: ScanAssignment, peer: PeerID) {
        var (harness, job, started) = try ScanScenarioTests.slicedJob(wholeFiles: true) { $0.wholeFileBytes = Self.wholeFileBytes }
        let sub = try #require(ScanScenarioTests.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        harness.handle(ScanScenarioTests.listing(sub.scan, small: small, piecesLater: true, from: sub.peer), at: .milliseconds(1))
        return (harness, job, sub.scan, sub.peer)
    }

    @Test("a wholeFiles worker's scan batches files up to wholeFileBytes, cut in the job's blocks; its batch goes to a verifier that can check them")
    func scansBatchWholeFiles() throws {
        var (harness, job, started) = try ScanScenarioTests.slicedJob(wholeFiles: true, verify: true) { $0.wholeFileBytes = Self.wholeFileBytes }
        defer { harness.cleanUp() }
        let record = try #require(harness.core.jobs[job])
        let scans = ScanScenarioTests.scans(in: started)
        #expect(!scans.isEmpty && scans.allSatisfy {
            $0.scan.smallFileBytes == UInt64(Self.wholeFileBytes) && $0.scan.memberBlocks == MemberBlocks(blockSize: 4096, engine: record.setting.engine)
        })
        let sub = try #require(scans.first { $0.scan.directory == Array("sub".utf8) })
        let small = [ScanScenarioTests.file("a", size: 10), ScanScenarioTests.file("w", size: 3 * 4096)]
        let listed = harness.handle(ScanScenarioTests.listing(
            sub.scan, small: small, large: [ScanScenarioTests.file("z", size: 5 * 4096)], from: sub.peer), at: .milliseconds(1))
        #expect(harness.core.malformedMessages == 0)
        let after = try #require(harness.core.jobs[job])
        #expect(after.open.values.map(\.plan.relativePath) == [BytePath("sub/z")], "the whole file has no entry of its own")
        let check = try #require(listed.sent.compactMap { sent -> (BatchCheck, PeerID)? in
            if case .verifyBatch(let check) = sent.message { (check, sent.peer) } else { nil }
        }.first)
        #expect(check.1 != sub.peer && check.0.files.map(\.relativePath) == [Array("sub/a".utf8), Array("sub/w".utf8)])
        #expect(check.0.memberBlocks == MemberBlocks(blockSize: 4096, engine: record.setting.engine))
    }

    @Test("a whole-file batch's audit goes to a third principal that checks whole files, as one verifyBatch; with none that can, it is done here")
    func auditsWholeFiles() throws {
        for thirdChecksWholeFiles in [true, false] {
            var (harness, job, started) = try ScanScenarioTests.slicedJob(wholeFiles: true, verify: true) { $0.wholeFileBytes = Self.wholeFileBytes }
            defer { harness.cleanUp() }
            var capabilities = ScanScenarioTests.capabilities
            if thirdChecksWholeFiles { capabilities.append(WorkerHello.wholeFilesCapability) }
            harness.register(c, slots: 4, storage: .shared, capabilities: capabilities, pid: 3, at: .milliseconds(1))
            let sub = try #require(ScanScenarioTests.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
            let listed = harness.handle(ScanScenarioTests.listing(
                sub.scan, small: [ScanScenarioTests.file("a", size: 10), ScanScenarioTests.file("w", size: 3 * 4096)], from: sub.peer), at: .milliseconds(2))
            let (first, verifier) = try #require(listed.sent.compactMap { sent -> (BatchCheck, PeerID)? in
                if case .verifyBatch(let check) = sent.message { (check, sent.peer) } else { nil }
            }.first)
            harness.core.rolls = FixedRolls(value: 0)
            let vouched = harness.handle(.workerMessage(.verified(VerifyReport(checkID: first.checkID, findings: first.files.map { _ in
                VerifyFinding(outcome: .decoded, crc: 7, sourceCRC: 7)
            })), from: verifier, origin: nil), at: .milliseconds(3))
            let audits = vouched.sent.compactMap { sent -> (BatchCheck, PeerID)? in
                if case .verifyBatch(let check) = sent.message { (check, sent.peer) } else { nil }
            }
            let local = vouched.compactMap { if case .check(.batch(let check)) = $0 { check } else { nil } }
            if thirdChecksWholeFiles {
                #expect(audits.count == 1 && local.isEmpty)
                #expect(audits.first.map { ![sub.peer, verifier].contains($0.1) } == true, "a third principal")
                #expect(audits.first?.0.memberBlocks == first.memberBlocks && audits.first?.0.files == first.files)
            } else {
                #expect(verifier != c, "c cannot check whole files")
                #expect(audits.isEmpty && local.count == 1 && local.first?.verdict == .audited(verifier))
            }
            #expect(harness.core.jobs[job]?.open.values.map(\.plan.relativePath) == [], "the batch stays whole")
        }
    }

    @Test("a worker that did not announce wholeFiles scans one-block files only, and a file past wholeFileBytes in a batch is refused")
    func limitsHold() throws {
        let (harness, _, started) = try ScanScenarioTests.slicedJob { $0.wholeFileBytes = Self.wholeFileBytes }
        defer { harness.cleanUp() }
        #expect(ScanScenarioTests.scans(in: started).allSatisfy { $0.scan.smallFileBytes == 4096 && $0.scan.memberBlocks == nil })
        var (whole, _, scans) = try ScanScenarioTests.slicedJob(wholeFiles: true) { $0.wholeFileBytes = Self.wholeFileBytes }
        defer { whole.cleanUp() }
        let sub = try #require(ScanScenarioTests.scans(in: scans).first)
        _ = whole.handle(ScanScenarioTests.listing(sub.scan, small: [ScanScenarioTests.file("w", size: 5 * 4096)], from: sub.peer), at: .milliseconds(1))
        #expect(whole.core.malformedMessages == 1, "a file past the limit in the batch breaks the slice's rules")
    }

    @Test("a batch answer with a failed piece: its whole file is planned afresh as items of its own, the rest goes on as a bundle")
    func leavingTheBatchPathPlansWholeFilesAfresh() throws {
        var (harness, job, scan, scanner) = try Self.subListed([ScanScenarioTests.file("a", size: 10), ScanScenarioTests.file("w", size: 3 * 4096)])
        defer { harness.cleanUp() }
        let item = ItemID(scan.itemID)
        let before = try #require(harness.core.jobs[job])
        #expect(before.items[item]?.files?.count == 2 && before.open.isEmpty)
        let answered = harness.handle(.workerMessage(.resultRef(RefResult(
            jobID: scan.jobID, itemID: scan.itemID, attempt: scan.attempt,
            pieces: [PieceReport(crc: 7, rawLength: 10, pieceLength: 40), PieceReport(failure: "changed while read")])), from: scanner, origin: nil),
            at: .milliseconds(2))
        #expect(answered.sent.allSatisfy { if case .publish = $0.message { false } else { true } }, "nothing of that answer is published")
        let record = try #require(harness.core.jobs[job])
        #expect(record.batchFiles == before.batchFiles - 2, "both files left the batch path")
        // The batch is a bundle of its one-block file; the whole file has items of its own.
        #expect(record.items[item]?.files == nil)
        let wholeIndex = try #require(record.open.first { $0.value.plan.relativePath == BytePath("sub/w") }?.key)
        let oneBlock = try #require(record.open.first { $0.value.plan.relativePath == BytePath("sub/a") }?.key)
        #expect(record.items[item]?.blocks.map(\.file) == [oneBlock])
        let blocks = record.items.values.flatMap(\.blocks).filter { $0.file == wholeIndex }.map(\.index).sorted()
        #expect(blocks == [0, 1, 2])
        #expect(record.open[wholeIndex]?.firstItem != item)
        #expect(record.open[wholeIndex]?.plan.replacesOwnOutput == false, "never granted: nothing of it can be in place")
    }

    @Test("a worker lost holding a batch's grant: its one-block file goes to a writer's takeover, and its whole file, planned afresh, replaces the output the worker may have renamed")
    func grantTakenOverReplansWholeFiles() throws {
        var (harness, job, scan, scanner) = try Self.subListed([ScanScenarioTests.file("a", size: 10), ScanScenarioTests.file("w", size: 3 * 4096)])
        defer { harness.cleanUp() }
        let answered = harness.handle(.workerMessage(.resultRef(RefResult(
            jobID: scan.jobID, itemID: scan.itemID, attempt: scan.attempt,
            pieces: [PieceReport(crc: 7, rawLength: 10, pieceLength: 40), PieceReport(crc: 9, rawLength: 3 * 4096, pieceLength: 900)])),
            from: scanner, origin: nil), at: .milliseconds(2))
        let grant = try #require(answered.sent.compactMap { if case .publish(let grant) = $0.message { grant } else { nil } }.first, "unchecked: granted at once")
        #expect(grant.members.count == 2)
        // Lost after it renamed the members into place (it may have): not the same as a file
        // that was there before the job.
        let gone = harness.handle(.workerMessage(.goodbye, from: scanner, origin: nil), at: .milliseconds(3))
        let takenOver = gone.writes.flatMap { write -> [(spec: OutputSpec, piece: PieceBlock)] in
            if case .takeOver(let list) = write.command { return list }
            return []
        }
        #expect(takenOver.map(\.spec.relativePath) == [Array("sub/a".utf8)], "the one-block member: the same attempt's piece")
        let record = try #require(harness.core.jobs[job])
        let whole = try #require(record.open.values.first { $0.plan.relativePath == BytePath("sub/w") })
        #expect(whole.plan.replacesOwnOutput, "planned afresh, over the member its lost worker may have put in place")
        #expect(harness.core.spec(of: whole.plan, in: record).replace)
        let oneBlock = try #require(record.open.values.first { $0.plan.relativePath == BytePath("sub/a") })
        #expect(!oneBlock.plan.replacesOwnOutput, "the takeover recognises its member in place itself")
    }

    @Test("a batch made only of whole files whose answer has a failed piece is retired once its files are planned afresh: no empty bundle goes out")
    func allWholeBatchLeavesThePath() throws {
        var (harness, job, scan, scanner) = try Self.subListed([ScanScenarioTests.file("w", size: 3 * 4096)])
        defer { harness.cleanUp() }
        let item = ItemID(scan.itemID)
        let answered = harness.handle(.workerMessage(.resultRef(RefResult(
            jobID: scan.jobID, itemID: scan.itemID, attempt: scan.attempt, pieces: [PieceReport(failure: "changed while read")])),
            from: scanner, origin: nil), at: .milliseconds(2))
        let record = try #require(harness.core.jobs[job])
        #expect(record.items[item] == nil, "the emptied batch is retired")
        let wholeIndex = try #require(record.open.first { $0.value.plan.relativePath == BytePath("sub/w") }?.key)
        let sentBlocks = answered.sent.flatMap { sent -> [RefBlock] in if case .workRef(let work) = sent.message { work.blocks } else { [] } }
        #expect(!sentBlocks.isEmpty && sentBlocks.allSatisfy { $0.path.suffix(5) == Array("sub/w".utf8) }, "only the whole file's own items go out")
        #expect(answered.sent.allSatisfy { sent in
            if case .workRef(let work) = sent.message { work.itemID != item.value } else { true }
        }, "not the batch's item, as an empty bundle")
        #expect(record.items.values.flatMap(\.blocks).filter { $0.file == wholeIndex }.map(\.index).sorted() == [0, 1, 2])
    }

    @Test("a batch holding whole files that must go to a worker without wholeFiles is expanded first: the whole file gets items of its own")
    func batchToAWorkerWithoutWholeFiles() throws {
        var (harness, job, scan, _) = try Self.subListed([ScanScenarioTests.file("a", size: 10), ScanScenarioTests.file("w", size: 3 * 4096)])
        defer { harness.cleanUp() }
        let item = ItemID(scan.itemID)
        // Only a worker that takes batches but not whole files is left.
        harness.register(c, slots: 4, storage: .shared, capabilities: BatchScenarioTests.capabilities, pid: 3, at: .milliseconds(2))
        var effects: [CoordinatorEffect] = []
        for peer in [a, b] { effects += harness.handle(.workerMessage(.goodbye, from: peer, origin: nil), at: .milliseconds(3)) }
        #expect(effects.sent.allSatisfy { if case .batch(let batch) = $0.message, $0.peer == c, batch.itemID == item.value { false } else { true } },
                "the batch with a whole file does not go to c as a batch")
        let record = try #require(harness.core.jobs[job])
        #expect(record.items[item]?.files == nil, "the batch became a bundle")
        let oneBlock = try #require(record.open.first { $0.value.plan.relativePath == BytePath("sub/a") }?.key)
        let wholeIndex = try #require(record.open.first { $0.value.plan.relativePath == BytePath("sub/w") }?.key)
        #expect(record.items[item]?.blocks.map(\.file) == [oneBlock])
        #expect(record.items.values.flatMap(\.blocks).filter { $0.file == wholeIndex }.map(\.index).sorted() == [0, 1, 2])
        let works = effects.sent.compactMap { sent -> RefAssignment? in if case .workRef(let work) = sent.message, sent.peer == c { work } else { nil } }
        #expect(works.contains { $0.itemID == item.value && $0.blocks.count == 1 }, "the bundle of the one-block file goes to c")
    }

    /// A sliced job whose root the coordinator lists itself at the start: a one-block file
    /// `f0`, `f1` of three blocks (within `wholeFileBytes`), `f2` of five (past it) and the
    /// folder `sub`; workers `a` and `b` take scans, and whole files when `wholeFiles`.
    private static func rootListedHere(wholeFiles: Bool) throws -> (harness: CoreHarness, job: JobID, started: [CoordinatorEffect]) {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        configuration.wholeFileBytes = Self.wholeFileBytes
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: 1))
        let capabilities = ScanScenarioTests.capabilities + (wholeFiles ? [WorkerHello.wholeFilesCapability] : [])
        harness.register(a, slots: 4, storage: .shared, capabilities: capabilities, pid: 1)
        harness.register(b, slots: 4, storage: .shared, capabilities: capabilities, pid: 2)
        let (job, started) = try harness.startJob(sizes: [100, 3 * 4096, 5 * 4096], sliced: true) { source in
            try FileManager.default.createDirectory(atPath: source + "/sub", withIntermediateDirectories: true)
        }
        return (harness, job, started)
    }

    @Test("files of several blocks the coordinator lists itself go whole into its batches when a scanning worker takes whole files, as that worker's listing would put them")
    func filesListedHereGoWhole() throws {
        let (harness, job, started) = try Self.rootListedHere(wholeFiles: true)
        defer { harness.cleanUp() }
        let record = try #require(harness.core.jobs[job])
        #expect(record.open.values.map(\.plan.relativePath) == [BytePath("f2")], "only the file past wholeFileBytes has an entry")
        #expect(record.batchFiles == 2)
        #expect(record.items.values.flatMap(\.blocks).allSatisfy { $0.file == record.open.keys.first }, "f2's items, cut")
        // Nothing else is left to send: the planner is flushed at once and the batches go out.
        let batches = started.sent.compactMap { if case .batch(let batch) = $0.message { batch } else { nil } }
        let batch = try #require(batches.first { $0.files.contains { $0.relativePath == Array("f1".utf8) } })
        #expect(batch.files.map(\.relativePath) == [Array("f1".utf8)] && batch.files.first?.size == 3 * 4096)
        #expect(batch.memberBlocks == MemberBlocks(blockSize: 4096, engine: record.setting.engine))
        #expect(batches.flatMap(\.files).map(\.relativePath).sorted { $0.lexicographicallyPrecedes($1) } == [Array("f0".utf8), Array("f1".utf8)])
        #expect(started.sent.allSatisfy { sent in
            if case .workRef(let work) = sent.message { work.blocks.allSatisfy { $0.path.suffix(2) == Array("f2".utf8) } } else { true }
        }, "only f2 goes in items of blocks")
    }

    @Test("without a scanning worker that takes whole files, the files the coordinator lists are cut into items as before")
    func filesListedHereCutWithoutWholeFiles() throws {
        let (harness, job, _) = try Self.rootListedHere(wholeFiles: false)
        defer { harness.cleanUp() }
        let record = try #require(harness.core.jobs[job])
        #expect(Set(record.open.values.map(\.plan.relativePath)) == [BytePath("f1"), BytePath("f2")])
        #expect(record.batchFiles == 1)
    }
}
