import Foundation
import Glibc
import SqueezeIO
import Testing
@testable import SqueezeArchive

/// A tree laid out as a tar stream and read back in pieces.
@Suite("tar layout")
struct TarLayoutTests {
    /// A temporary folder with a few files, a folder, a symlink and a hard link.
    private static func makeTree() throws -> URL {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tar-layout-\(UUID().uuidString)")
        let top = root.appendingPathComponent("top")
        try FileManager.default.createDirectory(at: top.appendingPathComponent("sub"), withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        for (name, size) in [("a", 1), ("b", 511), ("c", 512), ("sub/d", 100_000), ("e", 0)] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: top.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(atPath: top.appendingPathComponent("link").path, withDestinationPath: "a")
        #expect(link(top.appendingPathComponent("c").path, top.appendingPathComponent("sub/c-again").path) == 0)
        return root
    }

    private static func layout(of root: URL) throws -> TarLayout {
        let top = BytePath(root.appendingPathComponent("top").path)
        let walker = try DirectoryWalker(root: top, everyEntry: true)
        var builder = TarLayoutBuilder(sourceRoot: top, top: Array("top".utf8))
        while !walker.isFinished { builder.add(walker.next(maxFiles: 2).entries) }
        return builder.finish()
    }

    private static func read(_ layout: TarLayout, _ range: Range<UInt64>) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0xaa, count: Int(range.upperBound - range.lowerBound))
        try bytes.withUnsafeMutableBytes { try layout.read(range, into: $0) }
        return bytes
    }

    @Test("entries in walk order, folders before their contents, the second name of a file a hard link")
    func entries() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = try Self.layout(of: root)
        let names = layout.tarEntries.map { String(decoding: $0.name, as: UTF8.self) }
        #expect(names == ["top/", "top/a", "top/b", "top/c", "top/e", "top/link", "top/sub/", "top/sub/c-again", "top/sub/d"])
        let kinds = layout.tarEntries.map(\.kind)
        #expect(kinds == [.directory, .regular, .regular, .regular, .regular, .symbolicLink, .directory, .hardLink, .regular])
        #expect(layout.tarEntries[7].linkTarget == Array("top/c".utf8))
        #expect(layout.fileCount == 5 && layout.fileBytes == 1 + 511 + 512 + 100_000)
        #expect(layout.length % TarLayout.recordSize == 0)
    }

    @Test("any split of the stream reads the same bytes as one read; the data sits after each header, padded")
    func readsInPieces() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = try Self.layout(of: root)
        let whole = try Self.read(layout, 0..<layout.length)
        for step in [1 as UInt64, 7, 512, 4099, 65_536] {
            var pieces: [UInt8] = []
            var start: UInt64 = 0
            while start < layout.length {
                let end = min(start + step, layout.length)
                pieces += try Self.read(layout, start..<end)
                start = end
            }
            #expect(pieces == whole, "pieces of \(step) bytes")
        }
        let expected = try Data(contentsOf: root.appendingPathComponent("top/sub/d"))
        let offset = try #require(whole.indices.first { whole[$0...].starts(with: expected.prefix(64)) })
        #expect(Array(whole[offset..<offset + expected.count]) == Array(expected))
        #expect(offset % 512 == 0)
        #expect(whole.suffix(1024).allSatisfy { $0 == 0 })
    }

    @Test("a file changed after the scan fails the read and names it")
    func changedFile() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = try Self.layout(of: root)
        try Data(repeating: 1, count: 7).write(to: root.appendingPathComponent("top/sub/d"))
        #expect {
            _ = try Self.read(layout, 0..<layout.length)
        } throws: { error in
            "\(error)".contains("sub/d") && "\(error)".contains("shrank")
        }
    }

    @Test("an entry that would take the archive past its limit is left out and named; the rest is archived")
    func limit() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let top = BytePath(root.appendingPathComponent("top").path)
        let walker = try DirectoryWalker(root: top, everyEntry: true)
        var builder = TarLayoutBuilder(sourceRoot: top, top: Array("top".utf8), limit: 50_000)
        var refused: [ScanNote] = []
        while !walker.isFinished { refused += builder.add(walker.next(maxFiles: 100).entries) }
        #expect(refused.map(\.relativePath.display) == ["sub/d"])
        #expect(refused.first?.reason.contains("would exceed 50000 bytes") == true)
        let layout = builder.finish()
        #expect(!layout.tarEntries.contains { $0.name == Array("top/sub/d".utf8) })
        #expect(layout.fileBytes == 1 + 511 + 512)
        #expect(layout.length <= 50_000)
    }
}
