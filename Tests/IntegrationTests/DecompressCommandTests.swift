import Foundation
import Glibc
import Testing

/// `squeeze decompress`: the way back from a `.squeezed` folder, a `.gz` and a `.tar.gz`.
@Suite("squeeze decompress", .serialized)
struct DecompressCommandTests {
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    @Test("a .squeezed folder comes back as its tree: contents, modes and mtimes of every regular file; an existing DEST needs --force")
    func folderRoundTrip() throws {
        let tree = try TestTree()
        try VariedTree.make(tree)
        #expect(chmod(tree.path("src/sizes/text-1"), 0o600) == 0)
        let squeezed = tree.path("src.squeezed")
        #expect(try SqueezeBinary.run(["compress", tree.path("src"), "--block-size", "64K"]).status == 0)
        try FileManager.default.moveItem(atPath: tree.path("src"), toPath: tree.path("original"))
        let back = try SqueezeBinary.run(["decompress", squeezed, "--workers", "3"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stderr.contains("27 files decompressed"), "\(back.stderr)")
        let files = { (root: String) throws -> [String] in try TreeEntries.of(root).filter { $0.contains(" file ") } }
        let original = try files(tree.path("original"))
        #expect(original.count == 27)
        #expect(try files(tree.path("src")) == original)

        let again = try SqueezeBinary.run(["decompress", squeezed])
        #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try SqueezeBinary.run(["decompress", squeezed, "--force"]).status == 0)
        #expect(try files(tree.path("src")) == original)
        #expect(TreeCheck.temporaries(under: tree.path("src")).isEmpty)
    }

    @Test("a corrupted .gz in the folder is named (exit 2) and gets no output; the rest comes back")
    func corruptedFile() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("src"), files: 40, bytesPerFile: 30_000)
        #expect(try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("out")]).status == 0)
        let bad = tree.path("out/part-1/file-10.dat.gz")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: bad)))
        bytes[bytes.count / 2] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        let outcome = try SqueezeBinary.run(["decompress", tree.path("out"), "-o", tree.path("back")])
        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("squeeze: \(bad): "), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("1 failed"), "\(outcome.stderr)")
        #expect(!Self.exists(tree.path("back/part-1/file-10.dat")))
        #expect(Self.exists(tree.path("back/part-1/file-11.dat")))
        #expect(TreeCheck.temporaries(under: tree.path("back")).isEmpty)
    }

    @Test("a .gz file becomes its file; a .tar.gz made by tar becomes its tree; a truncated one leaves nothing")
    func filesAndArchives() throws {
        let tree = try TestTree()
        try VariedTree.make(tree)
        let tar = try ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(tree.path(""))' && tar -czf src.tar.gz -C src . && head -c 20000 src.tar.gz > cut.tgz && gzip -c src/zeros.bin > zeros.bin.gz"])
        #expect(tar.status == 0, "\(tar.stderr)")
        #expect(try SqueezeBinary.run(["decompress", tree.path("zeros.bin.gz")]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tree.path("zeros.bin"))) == Data(count: 700_000))

        let archive = try SqueezeBinary.run(["decompress", tree.path("src.tar.gz"), "-o", tree.path("back")])
        #expect(archive.status == 0, "\(archive.stderr)")
        let source = try TreeEntries.of(tree.path("src"))
        #expect(source.count > 70)
        #expect(try TreeEntries.of(tree.path("back")) == source)

        let cut = try SqueezeBinary.run(["decompress", tree.path("cut.tgz")])
        #expect(cut.status == 2 && cut.stderr.contains("cut.tgz: ") && cut.stderr.contains("truncated"), "\(cut.stderr)")
        #expect(!Self.exists(tree.path("cut")))
        #expect(TreeCheck.temporaries(under: tree.path("")).isEmpty)
    }
}
