import Foundation
import Glibc
import SqueezeIO
import Testing

@Suite("SourceReader and scanner")
struct SourceReaderTests {
    @Test("a file that grows, shrinks or changes mtime after the scan fails the read")
    func changedFiles() throws {
        let folder = try ScratchFolder.make("io")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/f"
        try Data(repeating: 1, count: 10_000).write(to: URL(fileURLWithPath: path))
        let scan = try DirectoryScanner.scan(root: BytePath(folder))
        let stamp = try #require(scan.files.first?.stamp)
        #expect(try SourceReader.read(BytePath(path), expected: stamp, range: 0..<10_000).count == 10_000)

        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([2]))
        try handle.close()
        #expect { try SourceReader.read(BytePath(path), expected: stamp, range: 0..<10_000) } throws: { error in
            "\(error)".contains("grew")
        }
        #expect(truncate(path, 5_000) == 0)
        #expect { try SourceReader.read(BytePath(path), expected: stamp, range: 0..<5_000) } throws: { error in
            "\(error)".contains("shrank")
        }
        #expect(truncate(path, 10_000) == 0)
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect { try SourceReader.read(BytePath(path), expected: stamp, range: 0..<10_000) } throws: { error in
            "\(error)".contains("modified")
        }
    }

    @Test("the scanner skips symlinks and FIFOs without opening them and reports them")
    func skipsNonRegular() throws {
        let folder = try ScratchFolder.make("io")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "/etc")
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        let scan = try DirectoryScanner.scan(root: BytePath(folder))
        #expect(scan.files.map(\.relativePath) == [BytePath("file")])
        #expect(scan.skipped.map(\.relativePath.display) == ["fifo", "link"])
    }

    @Test("a temporary is never visible under the final name and is removed on discard")
    func atomicOutput() throws {
        let folder = try ScratchFolder.make("io")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let final = BytePath(folder + "/out.gz")
        let output = try AtomicOutputFile(finalPath: final)
        try output.write([[1, 2, 3]])
        #expect(!Directories.exists(final))
        output.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

        let second = try AtomicOutputFile(finalPath: final)
        try second.write([[4, 5]])
        try second.commit(permissions: 0o644, modifiedSeconds: 1_000, modifiedNanoseconds: 0, replace: false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: final.display)) == Data([4, 5]))
        let third = try AtomicOutputFile(finalPath: final)
        #expect(throws: FileSystemError.self) {
            try third.commit(permissions: 0o644, modifiedSeconds: 1_000, modifiedNanoseconds: 0, replace: false)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.gz"])
    }

    @Test("the walker hands a tree out in bounded batches: every file once, a folder's files before its subfolders, names in byte order")
    func walkerBatches() throws {
        let folder = try ScratchFolder.make("io")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for directory in ["b", "a/z", "a/y"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + directory, withIntermediateDirectories: true)
        }
        let names = ["top2", "top1", "a/f3", "a/f1", "a/f2", "a/y/g", "a/z/h", "b/i", "b/j"]
        for name in names { _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data([1])) }
        #expect(symlink("/etc", folder + "/a/link") == 0)

        let walker = try DirectoryWalker(root: BytePath(folder), exclude: BytePath("b/j"))
        var batches: [[String]] = []
        var skipped: [String] = []
        while !walker.isFinished {
            let batch = walker.next(maxFiles: 2)
            #expect(batch.files.count <= 2)
            batches.append(batch.files.map(\.relativePath.display))
            skipped += batch.skipped.map(\.relativePath.display)
        }
        #expect(batches.flatMap { $0 } == ["top1", "top2", "a/f1", "a/f2", "a/f3", "a/y/g", "a/z/h", "b/i"])
        #expect(batches.count >= 4)
        #expect(skipped == ["a/link"])
        #expect(walker.next(maxFiles: 2).files.isEmpty)
    }

    @Test("sealed outputs stay hidden until published after one syncfs; a sealed discard leaves nothing")
    func sealedBatch() throws {
        let folder = try ScratchFolder.make("io")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outputs = try (0..<3).map { try AtomicOutputFile(finalPath: BytePath(folder + "/f\($0).gz")) }
        for (index, output) in outputs.enumerated() {
            try output.write([[UInt8(index)]])
            try output.seal(permissions: 0o640, modifiedSeconds: 1_234, modifiedNanoseconds: 5)
        }
        #expect(Set(outputs.map(\.device)).count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { $0.hasPrefix(AtomicOutputFile.temporaryPrefix) })
        try AtomicOutputFile.syncFileSystem(containing: outputs[0].finalPath)
        #expect(throws: FileSystemError.self) { try outputs[0].publish(replace: false) }  // not synced yet
        try outputs[0].sync()
        try outputs[1].sync()
        try outputs[0].publish(replace: false)
        try outputs[1].publish(replace: false)
        outputs[2].discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["f0.gz", "f1.gz"])
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/f1.gz")
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        #expect((attributes[.modificationDate] as? Date)?.timeIntervalSince1970.rounded() == 1_234)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/f1.gz")) == Data([1]))
        // Publishing twice is refused; the published file stays.
        #expect(throws: FileSystemError.self) { try outputs[1].publish(replace: true) }
        #expect(FileManager.default.fileExists(atPath: folder + "/f1.gz"))
    }

    @Test("a sealed output's facts: its size, the inode it keeps when published, the trailer's CRC; a file too short for gzip is refused")
    func sealedFacts() throws {
        let folder = try ScratchFolder.make("io")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try AtomicOutputFile(finalPath: BytePath(folder + "/a.gz"))
        #expect(throws: FileSystemError.self) { try output.sealedFacts() }  // not sealed yet
        // 10 header bytes, 2 of deflate, CRC 0x04030201 and ISIZE 7, little-endian.
        try output.write([[0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3], [3, 0], [1, 2, 3, 4], [7, 0, 0, 0]])
        try output.seal(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0)
        let facts = try output.sealedFacts()
        #expect(facts.size == 20)
        #expect(facts.crc == 0x0403_0201)
        try output.sync()
        try output.publish(replace: false)
        let published = try FileManager.default.attributesOfItem(atPath: folder + "/a.gz")
        #expect((published[.systemFileNumber] as? UInt64).map { $0 == facts.inode } ?? false, "\(published)")

        let short = try AtomicOutputFile(finalPath: BytePath(folder + "/b.gz"))
        try short.write([[1, 2, 3]])
        try short.seal(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0)
        #expect(throws: FileSystemError.self) { try short.sealedFacts() }
        short.discard()
    }
}
