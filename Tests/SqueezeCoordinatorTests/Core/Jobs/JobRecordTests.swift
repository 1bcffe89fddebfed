import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

@Suite("Job record")
struct JobRecordTests {
    /// A job of `planner`'s shape with its workspace in `folder`, nothing planned yet.
    private static func job(planner: Planner, workspaceIn folder: String) throws -> JobRecord {
        return JobRecord(
            id: 1, request: JobRequest(source: "src", destination: nil, level: 6, force: false),
            setting: try EngineSetting(engine: .libdeflate, level: 6), sourceDisplay: "src", destinationDisplay: "dst",
            sourceRoot: BytePath("/src"), destination: BytePath("/dst"), planner: planner,
            workspace: try JobWorkspace(in: BytePath(folder)),
            at: .now, submittedAt: Date())
    }

    /// A fresh folder for a job's workspace; the caller removes it.
    private static func scratchFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-jr-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("only a flush is left once every open file is sealed and the scan is done, not before, and not after a sealed file closes")
    func onlyFlushLeft() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var job = try Self.job(planner: Planner(blockSize: 1000, itemBytes: 3000), workspaceIn: folder)
        let files = (0..<3).map { index in
            PlannedFile(
                index: index, relativePath: BytePath("f\(index)"),
                stamp: FileStamp(size: 500, modifiedSeconds: 0, modifiedNanoseconds: 0, device: 1, inode: UInt64(index), permissions: 0o644),
                layout: BlockLayout(fileSize: 500, blockSize: 1000))
        }
        job.add(files: files, items: Planner.items(for: files, blockSize: 1000, itemBytes: 3000))
        #expect(job.scanComplete, "no walker and no scan running")
        job.sealed(0)
        job.sealed(0)  // twice counts once
        job.sealed(1)
        #expect(!job.onlyFlushLeft, "file 2 is not sealed yet")
        _ = job.close(1)  // published
        #expect(!job.onlyFlushLeft, "file 2 is still not sealed")
        job.sealed(2)
        #expect(job.onlyFlushLeft, "files 0 and 2 are sealed and nothing else is open")
        job.scanBusy = true
        #expect(!job.onlyFlushLeft, "the scan may still plan files")
        job.scanBusy = false
        _ = job.close(0)
        _ = job.close(2)
        #expect(!job.onlyFlushLeft, "nothing is open: nothing to flush")
        job.sealed(5)  // not a file of the job
        #expect(!job.onlyFlushLeft)
    }

    @Test("a written block is traced back to the item that carried it, for files planned in wide and plain items and bundled")
    func blocksTraceBackToTheirItems() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let blockSize = 1000
        var job = try Self.job(planner: Planner(blockSize: blockSize, itemBytes: 3 * blockSize), workspaceIn: folder)
        // Sizes with a head of wide items and a tail of plain ones, files too short for a head,
        // and single-block files that go in bundles.
        let sizes: [UInt64] = [400_500, 2_500, 77_777, 300, 999_999, 0, 48_000, 150]
        let files = sizes.enumerated().map { index, size in
            PlannedFile(
                index: index, relativePath: BytePath("f\(index)"),
                stamp: FileStamp(size: size, modifiedSeconds: 0, modifiedNanoseconds: 0, device: 1, inode: UInt64(index), permissions: 0o644),
                layout: BlockLayout(fileSize: size, blockSize: blockSize))
        }
        let items = Planner.items(for: files, blockSize: blockSize, itemBytes: 3 * blockSize)
        #expect(Set(items.map(\.blocks.count)).isSuperset(of: [3, 3 * Planner.headFactor]), "the plan has both wide and plain items")
        job.add(files: files, items: items)
        for item in items {
            for ref in item.blocks {
                #expect(job.item(holding: ref) == item.id, "block \(ref.index) of file \(ref.file)")
            }
        }
    }

    @Test("a summary lists what fits in one client message and counts the rest; failures other than existing outputs first, so the journal's rule reads the same")
    func summaryListsAreCut() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var job = try Self.job(planner: Planner(blockSize: 1000, itemBytes: 3000), workspaceIn: folder)
        let long = String(repeating: "n", count: 200)
        let links = (0..<5000).map { EntryNote(path: "links/\($0)-" + long, reason: "symbolic link (not followed)") }
        job.skipped += links
        let existing = (0..<5000).map { EntryNote(path: "\($0)-" + long, reason: "output exists", outputExists: true) }
        job.failed += existing + [EntryNote(path: "late", reason: "changed while being read")]
        let summary = job.summary(now: .now)
        #expect(summary.skippedTotal == 5000 && summary.skippedCount == 5000)
        #expect(summary.skipped.count < 5000 && summary.skipped.count > 1000)
        #expect(summary.skipped == Array(links.prefix(summary.skipped.count)), "the first, in order")
        #expect(summary.failedTotal == 5001 && summary.failedCount == 5001)
        #expect(summary.failed.first?.path == "late", "the one failure that a second run may fix comes first")
        let body = WireCodec.encode(.jobEvent(.finished(summary)))
        #expect(body.reduce(0) { $0 + $1.count } <= ProtocolLimits.maxControlBody)

        // Small lists go whole, in their order, with no totals.
        job.skipped = JobNotes()
        job.skipped += Array(links.prefix(3))
        job.failed = JobNotes()
        job.failed += [existing[0], EntryNote(path: "late", reason: "changed while being read")]
        let small = job.summary(now: .now)
        #expect(small.skipped.count == 3 && small.skippedTotal == nil && small.failedTotal == nil)
        #expect(small.failed.map(\.path) == ["late", existing[0].path], "failures other than an existing output first")
    }
}
