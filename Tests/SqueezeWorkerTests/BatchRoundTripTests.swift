import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeWorker

/// A `batch` on a worker: each file becomes the whole member the coordinator would have asked
/// for by reference (its name, mtime and level in the header), and a `verifyBatch` of that
/// attempt decodes each piece against its source, catching a changed source or a swapped piece.
@Suite("Batches on a worker")
struct BatchRoundTripTests {
    /// A source folder of three files (one empty, one in a subfolder with an odd name), their
    /// batch, and the workspace the pieces go to.
    private static func fixture() throws -> (root: String, batch: BatchAssignment, contents: [[UInt8]]) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-batch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/src/sub dir", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
        let workspace = try JobWorkspace(in: BytePath(root + "/out"))
        let names = ["a.txt", "sub dir/ü b.bin", "empty"]
        let contents: [[UInt8]] = [
            Array(String(repeating: "squeeze the batch ", count: 500).utf8), (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }, [],
        ]
        var files: [BatchFile] = []
        for (name, bytes) in zip(names, contents) {
            let path = root + "/src/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let info = try #require(try Directories.status(BytePath(path)))
            let stamp = FileStamp(info)
            files.append(BatchFile(
                relativePath: Array(name.utf8), size: stamp.size, modifiedSeconds: stamp.modifiedSeconds,
                modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode, permissions: stamp.permissions))
        }
        let batch = BatchAssignment(
            jobID: 1, itemID: 5, attempt: 17, setting: try EngineSetting(engine: .libdeflate, level: 6), headerLevel: 6,
            workspace: workspace.path.bytes, root: Array((root + "/src").utf8), syncPieces: false, files: files)
        return (root, batch, contents)
    }

    private static func compress(_ batch: BatchAssignment) throws -> RefResult {
        var compressor = ItemCompressor()
        var phases = ItemPhases()
        return try #require(try compressor.compress(batch.reference, phases: &phases, shouldStop: { false }))
    }

    private static func check(of batch: BatchAssignment, _ result: RefResult) -> BatchCheck {
        BatchCheck(
            checkID: 3, jobID: batch.jobID, itemID: batch.itemID, attempt: batch.attempt, headerLevel: batch.headerLevel,
            workspace: batch.workspace, root: batch.root, files: batch.files, pieceLengths: result.pieces.map(\.pieceLength))
    }

    @Test("each file becomes its whole member, named by position and attempt, and a check of it finds each CRC")
    func compressAndCheck() throws {
        let (root, batch, contents) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try Self.compress(batch)
        #expect(result.pieces.count == 3 && result.pieces.allSatisfy { $0.failure == nil })
        for (position, (file, bytes)) in zip(batch.files, contents).enumerated() {
            let piece = JobWorkspace.piecePath(in: BytePath(bytes: batch.workspace), item: 5, attempt: 17, position: position)
            let member = [UInt8](try Data(contentsOf: URL(fileURLWithPath: piece.display)))
            let header = GzipHeader(fileName: file.name, modificationTime: UInt32(clamping: file.modifiedSeconds), level: 6).encoded()
            #expect(Array(member.prefix(header.count)) == header, "position \(position)")
            #expect(try GzipDecoder.decompress(member) == bytes)
            #expect(result.pieces[position].pieceLength == UInt64(member.count))
            #expect(result.pieces[position].crc == CRC32.checksum(bytes))
        }
        let report = VerifyRunner.run(Self.check(of: batch, result).request)
        #expect(report.checkID == 3)
        #expect(report.findings.map(\.outcome) == [.decoded, .decoded, .decoded])
        #expect(report.findings.map(\.crc) == result.pieces.map(\.crc))
        #expect(report.findings.map(\.sourceCRC) == result.pieces.map(\.crc))
    }

    @Test("a source changed after it was compressed, or a piece swapped for another file's, does not check out")
    func changedOrSwapped() throws {
        let (root, batch, _) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try Self.compress(batch)
        let workspace = BytePath(bytes: batch.workspace)
        // Piece 0 replaced by piece 1's bytes: decodes, but not to file 0.
        let swapped = try Data(contentsOf: URL(fileURLWithPath: JobWorkspace.piecePath(in: workspace, item: 5, attempt: 17, position: 1).display))
        try swapped.write(to: URL(fileURLWithPath: JobWorkspace.piecePath(in: workspace, item: 5, attempt: 17, position: 0).display))
        var check = Self.check(of: batch, result)
        check.pieceLengths[0] = UInt64(swapped.count)
        // File 1 grows after the fact.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: root + "/src/sub dir/ü b.bin"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1]))
        try handle.close()
        let findings = VerifyRunner.run(check.request).findings
        #expect(findings[0].outcome != .decoded || findings[0].crc != result.pieces[0].crc, "a swapped piece is not file 0's member")
        #expect(findings[1].outcome == .unreadable, "a changed source is not checked against")
        #expect(findings[2].outcome == .decoded && findings[2].crc == result.pieces[2].crc)
    }
}
