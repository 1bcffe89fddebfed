import Foundation
import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import Testing
@testable import SqueezeCoordinator

/// A resumed job keeps an output the journal has no row for (a worker published it) when the
/// output itself says it was made from the source as it is now: its mtime is the source's and
/// its trailer gives the source's size. Anything else at the path is still refused.
@Suite("Resuming from the outputs themselves")
struct ResumeFromOutputsTests {
    @Test("an output made from the source is kept; one with another mtime or size is refused; a missing one is planned")
    func keptFromFacts() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-resume-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = root + "/src", destination = root + "/out"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        let setting = try EngineSetting(engine: .libdeflate, level: 6)
        var contents: [[UInt8]] = []
        for file in 0..<4 {
            let data = Array("file \(file) ".utf8) + [UInt8](repeating: UInt8(97 + file), count: 1000 * (file + 1))
            contents.append(data)
            try Data(data).write(to: URL(fileURLWithPath: "\(source)/f\(file)"))
        }
        // f0: its output, mtime copied. f1: its output, but another mtime. f2: the output of
        // other bytes with f2's mtime (the trailer's size differs). f3: no output.
        for file in 0..<3 {
            let bytes = file == 2 ? Array(contents[2].prefix(10)) : contents[file]
            let member = try GzipMember.compress(bytes, blockSize: 1 << 20, setting: setting, header: GzipHeader(fileName: nil, modificationTime: 0, level: 6))
            let output = "\(destination)/f\(file).gz"
            try Data(member).write(to: URL(fileURLWithPath: output))
            var info = stat()
            #expect(stat("\(source)/f\(file)", &info) == 0)
            var times = [info.st_atim, info.st_mtim]
            if file == 1 { times[1].tv_sec -= 10 }
            #expect(utimensat(AT_FDCWD, output, &times, 0) == 0)
        }
        let journal = try Journal(path: root + "/journal.sqlite")
        let walker = try DirectoryWalker(root: BytePath(source))
        let context = JobPreparer.BatchContext(
            sourceRoot: BytePath(source), destination: BytePath(destination), force: false, blockSize: 1 << 20, batchFiles: 100,
            earlier: EarlierOutputs(journal: journal, job: 1))
        let batch = JobPreparer.nextBatch(of: walker, context: context, firstIndex: 0, lastCreated: nil)
        #expect(batch.kept.count == 1)
        #expect(batch.kept.first?.bytesIn == UInt64(contents[0].count))
        #expect(Set(batch.failed.filter { $0.outputExists == true }.map(\.path)) == ["f1", "f2"])
        #expect(batch.files.map(\.relativePath.display) == ["f3"])

        // A new job (no earlier outputs) keeps nothing: f0's output is refused like any other.
        var fresh = context
        fresh.earlier = nil
        let again = JobPreparer.nextBatch(of: try DirectoryWalker(root: BytePath(source)), context: fresh, firstIndex: 0, lastCreated: nil)
        #expect(again.kept.isEmpty)
        #expect(Set(again.failed.filter { $0.outputExists == true }.map(\.path)) == ["f0", "f1", "f2"])
    }
}
