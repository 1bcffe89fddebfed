import Foundation
import Glibc
import Testing

/// `squeeze test`: `gzip -t` for a folder of outputs, in parallel.
@Suite("squeeze test", .serialized)
struct TestCommandTests {
    @Test("good outputs pass (exit 0); a flipped byte, a truncation, a second member and an empty file are each named on their own line (exit 2), and no good file is")
    func namesBadFiles() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("src"), files: 200, bytesPerFile: 20_000)
        try TestCorpus.make(at: tree.path("src/big"), files: 1, bytesPerFile: 6 << 20, seed: 3)
        let out = tree.path("out")
        #expect(try SqueezeBinary.run(["compress", tree.path("src"), "-o", out]).status == 0)
        let good = try SqueezeBinary.run(["test", out, "--workers", "3"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stderr.contains("201 files tested") && good.stderr.contains(", 0 bad"), "\(good.stderr)")

        let flipped = out + "/big/part-0/file-0.dat.gz", truncated = out + "/part-3/file-31.dat.gz"
        let doubled = out + "/part-5/file-50.dat.gz", empty = out + "/part-7/file-70.dat.gz"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: flipped)))
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: flipped))
        let whole = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try whole.prefix(whole.count - 5).write(to: URL(fileURLWithPath: truncated))
        let member = try Data(contentsOf: URL(fileURLWithPath: doubled))
        try (member + member).write(to: URL(fileURLWithPath: doubled))
        try Data().write(to: URL(fileURLWithPath: empty))

        let bad = try SqueezeBinary.run(["test", out])
        #expect(bad.status == 2, "\(bad.stderr)")
        let named = bad.stderr.split(separator: "\n").filter { $0.hasPrefix("squeeze: /") }
        #expect(named.count == 4, "\(bad.stderr)")
        for path in [flipped, truncated, doubled, empty] {
            #expect(named.contains { $0.hasPrefix("squeeze: \(path): ") }, "\(path) not named in \(bad.stderr)")
        }
        #expect(bad.stderr.contains(doubled + ": data after the gzip member"), "\(bad.stderr)")
        #expect(bad.stderr.contains(", 4 bad"), "\(bad.stderr)")
        // A single file is checked the same way; a missing one is a fatal error.
        #expect(try SqueezeBinary.run(["test", out + "/part-0/file-0.dat.gz"]).status == 0)
        #expect(try SqueezeBinary.run(["test", truncated]).status == 2)
        let missing = try SqueezeBinary.run(["test", tree.path("nope")])
        #expect(missing.status == 1 && missing.stderr.contains("nope: No such file or directory"), "\(missing.stderr)")
    }
}
