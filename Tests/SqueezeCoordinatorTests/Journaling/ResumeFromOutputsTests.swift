import Foundation
import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import Testing
@testable import SqueezeCoordinator

/// A resumed job and the outputs workers published (`publish`): the journal records them
/// before the grant, with no inode (the coordinator never saw it), so the output is the job's
/// own when it is the very member recorded (size and trailer CRC). Anything else at the path
/// is someone else's.
@Suite("Resuming over outputs workers published")
struct ResumeFromOutputsTests {
    @Test("its own unchanged output is kept; a changed source is redone over it; another file at the path, or an unrecorded one, is refused")
    func ownOutputsByMember() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-resume-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = root + "/src", destination = root + "/out"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        let setting = try EngineSetting(engine: .libdeflate, level: 6)
        let journal = try Journal(path: root + "/journal.sqlite")
        try journal.insertJob(JournalJob(
            id: 1, request: Data("{}".utf8), source: source, destination: destination, state: .running, submittedBy: "test",
            createdAt: Date(), finishedAt: nil, totals: JournalTotals(filesDone: 0, filesFailed: 0, filesSkipped: 0, bytesIn: 0, bytesOut: 0),
            message: nil))
        var records: [PublishedFile] = []
        for file in 0..<4 {
            let data = Array("file \(file) ".utf8) + [UInt8](repeating: UInt8(97 + file), count: 1000 * (file + 1))
            try Data(data).write(to: URL(fileURLWithPath: "\(source)/f\(file)"))
            let member = try GzipMember.compress(data, blockSize: 1 << 20, setting: setting, header: GzipHeader(fileName: nil, modificationTime: 0, level: 6))
            // f2's output is another file of the same name; f3's is its member, but unrecorded.
            let written = file == 2 ? Array(member.dropLast(9)) + [0, 0, 0, 0, 0, 0, 0, 0, 0] : member
            try Data(written).write(to: URL(fileURLWithPath: "\(destination)/f\(file).gz"))
            var info = stat()
            #expect(stat("\(source)/f\(file)", &info) == 0)
            var times = [info.st_atim, info.st_mtim]
            #expect(utimensat(AT_FDCWD, "\(destination)/f\(file).gz", &times, 0) == 0)
            guard file < 3 else { continue }
            records.append(PublishedFile(
                job: 1, path: Array("f\(file)".utf8), sourceSize: UInt64(data.count), sourceModifiedSeconds: Int64(info.st_mtim.tv_sec),
                sourceModifiedNanoseconds: Int64(info.st_mtim.tv_nsec), sourceDevice: UInt64(info.st_dev), sourceInode: UInt64(info.st_ino),
                outputSize: UInt64(member.count), outputInode: 0, crc: CRC32.checksum(data)))
        }
        try journal.recordPublished(records)
        // f1's source changes after it was published.
        try Data("changed".utf8).write(to: URL(fileURLWithPath: "\(source)/f1"))

        let context = JobPreparer.BatchContext(
            sourceRoot: BytePath(source), destination: BytePath(destination), force: false, blockSize: 1 << 20, batchFiles: 100,
            earlier: EarlierOutputs(journal: journal, job: 1))
        let batch = JobPreparer.nextBatch(of: try DirectoryWalker(root: BytePath(source)), context: context, firstIndex: 0, lastCreated: nil)
        #expect(batch.kept.count == 1)
        #expect(batch.kept.first?.bytesOut == records[0].outputSize)
        #expect(batch.files.map(\.relativePath.display) == ["f1"])
        #expect(batch.files.first?.replacesOwnOutput == true, "its own earlier output is replaced")
        #expect(Set(batch.failed.filter { $0.outputExists == true }.map(\.path)) == ["f2", "f3"])
    }
}
