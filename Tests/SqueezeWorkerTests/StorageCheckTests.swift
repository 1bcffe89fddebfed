import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeWorker

/// The worker's side of a storage probe: what it compares of the sample, and what it answers.
@Suite("Worker: storage probes")
struct StorageCheckTests {
    static let scanned = ProbeSample(path: Array("/d/f".utf8), size: 100, modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 123_456_789, inode: 42)

    static func seen(size: UInt64 = 100, seconds: Int64 = 1_700_000_000, nanoseconds: Int64 = 123_456_789, inode: UInt64 = 42) -> FileStamp {
        FileStamp(size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, device: 9, inode: inode, permissions: 0o644)
    }

    @Test("size and mtime seconds must agree; inode numbers may differ; nanoseconds may be missing, not different")
    func views() throws {
        #expect(try StorageCheck.view(of: Self.scanned, seen: Self.seen(), path: "f") == .same)
        #expect(try StorageCheck.view(of: Self.scanned, seen: Self.seen(inode: 7), path: "f") == SharedView(inodes: false, nanoseconds: true))
        #expect(try StorageCheck.view(of: Self.scanned, seen: Self.seen(nanoseconds: 0, inode: 7), path: "f") == SharedView(inodes: false, nanoseconds: false))
        #expect(throws: FileSystemError.self) { try StorageCheck.view(of: Self.scanned, seen: Self.seen(size: 101), path: "f") }
        #expect(throws: FileSystemError.self) { try StorageCheck.view(of: Self.scanned, seen: Self.seen(seconds: 1_700_000_001), path: "f") }
        #expect(throws: FileSystemError.self) { try StorageCheck.view(of: Self.scanned, seen: Self.seen(nanoseconds: 5), path: "f") }
    }

    @Test("a probe it can see is answered shared, with an answer file holding the token and the CRC of the sample's head")
    func answers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("tok".utf8).write(to: URL(fileURLWithPath: folder + "/probe"))
        let bytes = (0..<(70 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/f"))
        let stamp = FileStamp(try #require(try Directories.status(BytePath(folder + "/f"))))
        let sample = ProbeSample(path: Array((folder + "/f").utf8), size: stamp.size, modifiedSeconds: stamp.modifiedSeconds,
                                 modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode &+ 1)
        let reply = StorageCheck.answer(StorageProbe(jobID: 3, workspace: Array(folder.utf8), token: "tok", sample: sample))
        #expect(reply.shared && reply.jobID == 3 && reply.answerIsWellFormed)
        #expect(reply.view == SharedView(inodes: false, nanoseconds: true))
        #expect(reply.sampleCRC == CRC32.checksum(Array(bytes.prefix(StorageProbe.sampleBytes))))
        let answer = try #require(reply.answer)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + answer)) == Data("tok".utf8))

        let wrongToken = StorageCheck.answer(StorageProbe(jobID: 3, workspace: Array(folder.utf8), token: "other", sample: sample))
        #expect(!wrongToken.shared && wrongToken.answer == nil)
    }
}
