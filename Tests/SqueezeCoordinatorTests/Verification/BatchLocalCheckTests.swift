import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// The coordinator's own check of a batch, on real files: the members a worker writes for the
/// batch pass, and a piece swapped for another file's, or a source changed since, does not.
@Suite("Checking a batch here")
struct BatchLocalCheckTests {
    /// Two files below a source root and their whole members as a batch's pieces (attempt 3 of
    /// item 7), written as a worker writes them.
    private static func fixture() throws -> (root: String, check: BatchLocalCheck) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-batch-check-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/src/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
        let workspace = try JobWorkspace(in: BytePath(root + "/out"))
        let names = ["a.txt", "sub/b ü.bin"]
        let contents: [[UInt8]] = [Array(String(repeating: "batch ", count: 900).utf8), (0..<20_000).map { UInt8(truncatingIfNeeded: $0 * 31 >> 2) }]
        var files: [PlannedFile] = []
        var pieces: [PieceReport] = []
        for (index, (name, bytes)) in zip(names, contents).enumerated() {
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/src/" + name))
            let stamp = FileStamp(try #require(try Directories.status(BytePath(root + "/src/" + name))))
            let file = PlannedFile(index: index, relativePath: BytePath(name), stamp: stamp, layout: BlockLayout(fileSize: stamp.size, blockSize: 1 << 20))
            let member = try GzipMember.compress(
                bytes, blockSize: 1 << 20, setting: try LevelTable.setting(forLevel: 6),
                header: GzipHeader(fileName: file.relativePath.lastComponent, modificationTime: UInt32(clamping: stamp.modifiedSeconds), level: 6))
            #expect(Array(member.prefix(file.batchFile.memberHeader(level: 6).count)) == file.batchFile.memberHeader(level: 6))
            let piece = JobWorkspace.piecePath(in: workspace.path, item: 7, attempt: 3, position: index)
            try Data(member).write(to: URL(fileURLWithPath: piece.display))
            files.append(file)
            pieces.append(PieceReport(crc: CRC32.checksum(bytes), rawLength: bytes.count, pieceLength: UInt64(member.count)))
        }
        let check = BatchLocalCheck(
            item: ItemKey(job: JobID(1), item: ItemID(7)), worker: a, attempt: AttemptID(3), pieces: pieces, files: files,
            sourceRoot: BytePath(root + "/src"), workspace: workspace.path, headerLevel: 6, verdict: .none)
        return (root, check)
    }

    @Test("a batch's members, as a worker writes them, pass")
    func good() throws {
        let (root, check) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(ResultChecker.check(check.checks()).defect == nil)
    }

    @Test("a piece swapped for another file's member fails the check")
    func swapped() throws {
        let (root, check) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var lying = check
        lying.pieces.swapAt(0, 1)
        let first = JobWorkspace.piecePath(in: check.workspace, item: 7, attempt: 3, position: 0).display
        let second = JobWorkspace.piecePath(in: check.workspace, item: 7, attempt: 3, position: 1).display
        try FileManager.default.removeItem(atPath: first)
        try FileManager.default.moveItem(atPath: second, toPath: first)
        try FileManager.default.copyItem(atPath: first, toPath: second)
        #expect(ResultChecker.check(lying.checks()).defect != nil)
    }

    @Test("a source changed since its stamp fails the check")
    func changedSource() throws {
        let (root, check) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: root + "/src/a.txt"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1]))
        try handle.close()
        #expect(ResultChecker.check(check.checks()).defect != nil)
    }
}
