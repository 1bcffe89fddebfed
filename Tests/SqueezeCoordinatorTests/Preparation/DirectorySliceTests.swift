import Foundation
import Glibc
import Testing
@testable import SqueezeIO

/// `DirectorySlice`: one directory's entries after a name, cut by entries and bytes, without
/// following links, refusing a directory on another file system when asked.
struct DirectorySliceTests {
    /// A folder with `names` as files of `size` bytes each, plus what `arrange` adds.
    private static func folder(_ names: [String], size: Int = 10, arrange: (String) throws -> Void = { _ in }) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("slice-\(UInt64.random(in: 1...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: root + "/d", withIntermediateDirectories: true)
        for name in names { try Data(repeating: 7, count: size).write(to: URL(fileURLWithPath: root + "/d/" + name)) }
        try arrange(root)
        return root
    }

    private static let roomy = DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 1000, maxSmallBytes: 1 << 30)

    @Test func aDirectoryInNameOrderSortedIntoItsKinds() throws {
        let root = try Self.folder(["b", "a"]) { root in
            try Data(repeating: 1, count: 500).write(to: URL(fileURLWithPath: root + "/d/large"))
            try FileManager.default.createDirectory(atPath: root + "/d/sub", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/d/link", withDestinationPath: "/etc")
            #expect(mkfifo(root + "/d/fifo", 0o600) == 0)
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let slice = try DirectorySlice.read(root: BytePath(root), directory: BytePath("d"), after: nil, exclude: nil, limits: Self.roomy)
        #expect(slice.smallFiles.map(\.relativePath.display) == ["d/a", "d/b"])
        #expect(slice.smallFiles.allSatisfy { $0.stamp.size == 10 })
        #expect(slice.largeFiles.map(\.relativePath.display) == ["d/large"])
        #expect(slice.subdirectories.map(\.display) == ["d/sub"])
        #expect(slice.skipped.map(\.relativePath.display) == ["d/fifo", "d/link"])
        #expect(slice.resumeAfter == nil)
    }

    @Test("a range a listing claimed: it ends at its last name, passes over the names known, and still keeps to its limits")
    func rangesWithKnownNames() throws {
        let names = (0..<10).map { "f\($0)" }
        let root = try Self.folder(names)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let known = [Array("f3".utf8), Array("f5".utf8), Array("f9".utf8)]
        let whole = try DirectorySlice.read(
            root: BytePath(root), directory: BytePath("d"), after: Array("f1".utf8), exclude: nil, limits: Self.roomy, through: Array("f7".utf8), known: known)
        #expect(whole.smallFiles.map(\.relativePath.display) == ["d/f2", "d/f4", "d/f6", "d/f7"])
        #expect(whole.resumeAfter == nil, "the range is done")
        var seen: [String] = []
        var after: [UInt8]?
        repeat {
            let slice = try DirectorySlice.read(
                root: BytePath(root), directory: BytePath("d"), after: after, exclude: nil,
                limits: DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 2, maxSmallBytes: 1 << 30), known: known)
            #expect(slice.smallFiles.count <= 2)
            seen += slice.smallFiles.map(\.relativePath.display)
            after = slice.resumeAfter
        } while after != nil
        #expect(seen == ["d/f0", "d/f1", "d/f2", "d/f4", "d/f6", "d/f7", "d/f8"])
    }

    @Test func slicesPickUpAfterTheirNameAndEndAtTheirLimits() throws {
        let names = (0..<10).map { "f\($0)" }
        let root = try Self.folder(names)
        defer { try? FileManager.default.removeItem(atPath: root) }
        var seen: [String] = []
        var after: [UInt8]?
        var slices = 0
        repeat {
            let limits = DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 3, maxSmallBytes: 1 << 30)
            let slice = try DirectorySlice.read(root: BytePath(root), directory: BytePath("d"), after: after, exclude: nil, limits: limits)
            #expect(slice.smallFiles.count <= 3)
            seen += slice.smallFiles.map(\.relativePath.display)
            after = slice.resumeAfter
            slices += 1
        } while after != nil && slices < 20
        #expect(seen == names.map { "d/" + $0 }, "every name once, in order")
        #expect(slices == 4)
        // By bytes: the slice ends once its small files reach the limit.
        let bytes = DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 1000, maxSmallBytes: 25)
        let first = try DirectorySlice.read(root: BytePath(root), directory: BytePath("d"), after: nil, exclude: nil, limits: bytes)
        #expect(first.smallFiles.count == 3 && first.resumeAfter == Array("f2".utf8))
        // The last entry ends the directory even at the limit.
        let last = try DirectorySlice.read(
            root: BytePath(root), directory: BytePath("d"), after: Array("f8".utf8), exclude: nil,
            limits: DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 1, maxSmallBytes: 1 << 30))
        #expect(last.smallFiles.map(\.relativePath.display) == ["d/f9"] && last.resumeAfter == nil)
    }

    @Test func theNameLeftOutIsNotListed() throws {
        let root = try Self.folder(["a", "out", "z"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let slice = try DirectorySlice.read(root: BytePath(root), directory: BytePath("d"), after: nil, exclude: Array("out".utf8), limits: Self.roomy)
        #expect(slice.smallFiles.map(\.relativePath.display) == ["d/a", "d/z"])
    }

    @Test func aSymbolicLinkOnTheWayIsNotFollowed() throws {
        let root = try Self.folder(["a"]) { root in
            try FileManager.default.createSymbolicLink(atPath: root + "/via", withDestinationPath: root + "/d")
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(throws: DirectorySlice.Refusal.self) {
            try DirectorySlice.read(root: BytePath(root), directory: BytePath("via"), after: nil, exclude: nil, limits: Self.roomy)
        }
        #expect(throws: DirectorySlice.Refusal.self) {
            try DirectorySlice.read(root: BytePath(root), directory: BytePath("missing"), after: nil, exclude: nil, limits: Self.roomy)
        }
    }

    @Test func aDirectoryOnAnotherFileSystemIsRefusedWhenAsked() throws {
        // /proc is always a file system of its own, below a root that is not.
        #expect(throws: DirectorySlice.Refusal.otherFileSystem) {
            try DirectorySlice.read(
                root: BytePath("/"), directory: BytePath("proc"), after: nil, exclude: nil, limits: Self.roomy, sameDeviceAsRoot: true)
        }
        let root = try Self.folder(["a"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let same = try DirectorySlice.read(root: BytePath(root), directory: BytePath("d"), after: nil, exclude: nil, limits: Self.roomy, sameDeviceAsRoot: true)
        #expect(same.smallFiles.count == 1)
    }

    @Test("a directory larger than a slice is read once for all its slices, again once it changes, and let go after its last")
    func namesOfAHugeDirectoryAreKeptBetweenSlices() throws {
        let root = try Self.folder((0..<9).map { "f\($0)" })
        defer { try? FileManager.default.removeItem(atPath: root) }
        var info = stat()
        #expect(stat(root + "/d", &info) == 0)
        let cache = DirectoryNameCache()
        var reads = 0
        func names(over limit: Int) throws -> [[UInt8]] {
            try cache.names(of: info, keepingOver: limit) { () throws(FileSystemError) in
                reads += 1
                return [Array("x".utf8), Array("y".utf8)]
            }
        }
        _ = try names(over: 1)
        _ = try names(over: 1)
        #expect(reads == 1, "kept: more names than a slice")
        cache.forget(info)
        _ = try names(over: 1)
        #expect(reads == 2, "read again once let go")
        _ = try names(over: 5)
        #expect(reads == 2)
        cache.forget(info)
        _ = try names(over: 5)
        _ = try names(over: 5)
        #expect(reads == 4, "a directory that fits one slice is not kept")
        // A changed directory (a new file changes its ctime) is another key.
        cache.forget(info)
        _ = try names(over: 1)
        usleep(10_000)
        try Data([1]).write(to: URL(fileURLWithPath: root + "/d/new"))
        #expect(stat(root + "/d", &info) == 0)
        _ = try names(over: 1)
        #expect(reads == 6)
        // Through slices: every name once, the new file included, however many slices.
        var seen: [String] = []
        var after: [UInt8]?
        repeat {
            let slice = try DirectorySlice.read(
                root: BytePath(root), directory: BytePath("d"), after: after, exclude: nil,
                limits: DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 2, maxSmallBytes: 1 << 30))
            seen += slice.smallFiles.map(\.relativePath.lastComponent).map { String(decoding: $0, as: UTF8.self) }
            after = slice.resumeAfter
        } while after != nil
        #expect(seen == (0..<9).map { "f\($0)" } + ["new"])
    }

    @Test("a walk reads the directory, then its subdirectories depth first, until the limits; the rest is left to the caller")
    func walkGoesDepthFirstWithinTheLimits() throws {
        let root = try Self.folder(["a"]) { root in
            for folder in ["d/p", "d/p/q", "d/r"] {
                try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
                try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: root + "/" + folder + "/x"))
            }
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let all = try DirectorySlice.walk(root: BytePath(root), directory: BytePath("d"), after: nil, exclude: nil, limits: Self.roomy, maxDirectories: 256)
        #expect(all.map(\.directory.display) == ["d", "d/p", "d/p/q", "d/r"])
        #expect(all.flatMap(\.smallFiles).map(\.relativePath.display) == ["d/a", "d/p/x", "d/p/q/x", "d/r/x"])
        // Two directories at most: d and d/p; d/p/q and d/r are left (named by their parents).
        let two = try DirectorySlice.walk(root: BytePath(root), directory: BytePath("d"), after: nil, exclude: nil, limits: Self.roomy, maxDirectories: 2)
        #expect(two.map(\.directory.display) == ["d", "d/p"])
        // Three small files at most over the walk: the third is d/p/q's, which ends the walk.
        let three = try DirectorySlice.walk(
            root: BytePath(root), directory: BytePath("d"), after: nil, exclude: BytePath("d/r"),
            limits: DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 3, maxSmallBytes: 1 << 30), maxDirectories: 256)
        #expect(three.flatMap(\.smallFiles).count <= 3)
        #expect(three.map(\.directory.display) == ["d", "d/p", "d/p/q"])
        #expect(all.first?.subdirectories.map(\.display) == ["d/p", "d/r"] && three.first?.subdirectories.map(\.display) == ["d/p"], "d/r left out")
        // A subdirectory on another file system is not gone into.
        let proc = try DirectorySlice.walk(
            root: BytePath("/"), directory: BytePath(bytes: []), after: Array("pro".utf8), exclude: nil,
            limits: DirectorySlice.Limits(smallFileBytes: 100, maxEntries: 1, maxSmallBytes: 1 << 30), maxDirectories: 4, sameDeviceAsRoot: true)
        #expect(!proc.contains { $0.directory.display == "proc" })
    }
}
