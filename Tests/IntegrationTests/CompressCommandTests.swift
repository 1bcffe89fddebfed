import Foundation
import Testing

@Suite("squeeze compress", .serialized)
struct CompressCommandTests {
    @Test("a varied folder round-trips through the system gzip; non-regular entries are skipped")
    func variedFolder() throws {
        let tree = try TestTree()
        try VariedTree.make(tree)
        let outcome = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("out"), "--block-size", "64K", "--json", "--workers", "3"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let events = outcome.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        #expect(events.first?["event"] as? String == "started")
        let skipped = events.filter { $0["event"] as? String == "skipped" }.compactMap { $0["path"] as? String }
        #expect(Set(skipped) == ["a-fifo", "link-to-big"])
        let finished = try #require(events.last)
        #expect(finished["event"] as? String == "finished")
        #expect(finished["state"] as? String == "completed")
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path("out")) == 27)
        // The header carries the name, like gzip: `gzip -N -l` style check via the FNAME bytes.
        let header = try Data(contentsOf: URL(fileURLWithPath: tree.path("out/name with spaces.txt.gz"))).prefix(40)
        #expect(header.range(of: Data("name with spaces.txt\0".utf8)) != nil)
    }

    @Test("the same input gives the same bytes whatever the number of workers, with each engine",
          arguments: [[], ["--engine", "zlib"], ["--engine", "libdeflate"], ["--engine", "isal"], ["--level", "1"], ["--level", "9"]])
    func deterministic(options: [String]) throws {
        let tree = try TestTree()
        var data = TestData(seed: 7)
        try tree.write("src/a.txt", data.text(3_000_000))
        try tree.write("src/b.bin", data.random(400_000))
        try tree.write("src/c.txt", data.text(5_000))
        for workers in ["1", "4"] {
            let outcome = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("out\(workers)"), "--block-size", "128K", "--workers", workers] + options)
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        for name in ["a.txt.gz", "b.bin.gz", "c.txt.gz"] {
            let one = try Data(contentsOf: URL(fileURLWithPath: tree.path("out1/\(name)")))
            let four = try Data(contentsOf: URL(fileURLWithPath: tree.path("out4/\(name)")))
            #expect(one == four, "\(name) differs between 1 and 4 workers")
        }
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path("out4")) == 3)
    }

    @Test("--engine forces the engine: each gives different bytes, all of them valid gzip")
    func forcedEngine() throws {
        let tree = try TestTree()
        var data = TestData(seed: 8)
        try tree.write("src/a.txt", data.text(1_000_000))
        var outputs: [String: Data] = [:]
        for engine in ["zlib", "libdeflate", "isal"] {
            let outcome = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path(engine), "--block-size", "256K", "--engine", engine])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path(engine)) == 1)
            outputs[engine] = try Data(contentsOf: URL(fileURLWithPath: tree.path("\(engine)/a.txt.gz")))
        }
        #expect(Set(outputs.values).count == 3)
        // The default level 6 is libdeflate's.
        let outcome = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("default"), "--block-size", "256K"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tree.path("default/a.txt.gz"))) == outputs["libdeflate"])
    }

    @Test("existing outputs are refused without --force and replaced with it")
    func existingOutputs() throws {
        let tree = try TestTree()
        var data = TestData(seed: 3)
        try tree.write("src/a.txt", data.text(10_000))
        try tree.write("src/b.txt", data.text(10_000))
        #expect(try SqueezeBinary.run(["compress", tree.path("src")]).status == 0)
        let again = try SqueezeBinary.run(["compress", tree.path("src")])
        #expect(again.status == 2)
        #expect(again.stderr.contains("a.txt: output"))
        #expect(again.stderr.contains("already exists (use --force to replace it)"))
        try tree.write("src/a.txt", data.text(20_000))
        #expect(try SqueezeBinary.run(["compress", tree.path("src"), "--force"]).status == 0)
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path("src.squeezed")) == 2)
    }

    @Test("a folder named with a trailing slash (as shells complete it) goes to SRC.squeezed beside it, not inside it")
    func trailingSlash() throws {
        let tree = try TestTree()
        try tree.write("src/a.txt", Array("hello, slash\n".utf8))
        let outcome = try SqueezeBinary.run(["compress", tree.path("src") + "//"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path("src.squeezed")) == 1)
    }

    @Test("a single file goes to DEST/<name>.gz")
    func singleFile() throws {
        let tree = try TestTree()
        var data = TestData(seed: 5)
        try tree.write("one/report.txt", data.text(200_000))
        let outcome = try SqueezeBinary.run(["compress", tree.path("one/report.txt"), "-o", tree.path("dest")])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(FileManager.default.fileExists(atPath: tree.path("dest/report.txt.gz")))
        let check = try ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "gzip -dc \"$1\" | cmp - \"$2\"", "sh", tree.path("dest/report.txt.gz"), tree.path("one/report.txt")])
        #expect(check.status == 0)
    }

    @Test("a small file of two blocks is compressed on both in-process workers at once")
    func smallFileUsesEveryWorker() throws {
        let tree = try TestTree()
        var data = TestData(seed: 6)
        try tree.write("one/two-blocks.txt", data.text(900_000))
        let outcome = try SqueezeBinary.run([
            "compress", tree.path("one/two-blocks.txt"), "-o", tree.path("dest"), "--block-size", "512K", "--workers", "2",
            "--trace", tree.path("trace.json"),
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // The job waits for both workers to register, so neither item queues behind the other.
        let items = try TraceFile(path: tree.path("trace.json")).items
        #expect(items.map(\.item).sorted() == [0, 1], "\(items)")
        #expect(Set(items.map(\.pid)).count == 2, "both items went to one worker: \(items)")
    }

    @Test("fatal input errors give one clear line and exit 1")
    func fatalErrors() throws {
        let tree = try TestTree()
        try tree.write("src/a.txt", Array("hello".utf8))
        let missing = try SqueezeBinary.run(["compress", tree.path("nope")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope: no such file or directory"))
        let inside = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("src/out")])
        #expect(inside.status == 1)
        #expect(inside.stderr.contains("destination is inside the source"))
        #expect(!FileManager.default.fileExists(atPath: tree.path("src/out")))
        let level = try SqueezeBinary.run(["compress", tree.path("src"), "--level", "12"])
        #expect(level.status == 1)
        #expect(level.stderr == "squeeze: --level 12: must be 0-9\n")
        let engine = try SqueezeBinary.run(["compress", tree.path("src"), "--engine", "zstd"])
        #expect(engine.status == 1)
        #expect(engine.stderr == "squeeze: --engine \"zstd\": unknown engine (choose one of zlib, libdeflate, isal, stored)\n")
        #expect(!FileManager.default.fileExists(atPath: tree.path("src.squeezed")))
        // A size whose multiplication overflows is a usage error, not a trap.
        let huge = try SqueezeBinary.run(["compress", tree.path("src"), "--block-size", "99999999999999999G"])
        #expect(huge.status == 64, "\(huge.stderr)")
    }

    @Test("Ctrl-C cancels the job even when it comes before the job has started: exit 1, no temporaries")
    func interruptedEarly() throws {
        let tree = try TestTree()
        // Enough files that the scan takes a while: the interrupt lands before the job exists.
        try TestCorpus.make(at: tree.path("src"), files: 2000, bytesPerFile: 8 << 10)
        let compress = try BackgroundProcess(
            "compress", arguments: ["compress", tree.path("src"), "-o", tree.path("out"), "--json", "--workers", "2"], in: tree.root)
        // SIGINT once the process catches it (its signal trap is armed), and not before.
        try #require(Poll.until(timeout: 30, every: 0.001) { Self.catches(SIGINT, pid: compress.pid) || !compress.isRunning })
        compress.signal(SIGINT)
        #expect(compress.wait(timeout: 120) == 1, "\(compress.stderr)")
        #expect(JobEvents.finished(compress.stdout)?["state"] as? String == "cancelled", "\(compress.stdout.suffix(500))")
        #expect(TreeCheck.temporaries(under: tree.path("out")).isEmpty)
    }

    /// Whether process `pid` has a handler installed for `signal` (SigCgt in /proc).
    private static func catches(_ signal: Int32, pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    @Test("an empty folder and empty files are fine")
    func emptyThings() throws {
        let tree = try TestTree()
        try FileManager.default.createDirectory(atPath: tree.path("empty"), withIntermediateDirectories: true)
        #expect(try SqueezeBinary.run(["compress", tree.path("empty")]).status == 0)
        try tree.write("src/zero", [])
        #expect(try SqueezeBinary.run(["compress", tree.path("src")]).status == 0)
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path("src.squeezed")) == 1)
    }

    @Test("a file over 4 GiB: ISIZE wraps, and gzip -dc accepts the member and gives back every byte")
    func overFourGiB() throws {
        let tree = try TestTree()
        let path = tree.path("big/sparse.bin")
        try FileManager.default.createDirectory(atPath: tree.path("big"), withIntermediateDirectories: true)
        let size: off_t = (1 << 32) + 12345
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        #expect(fd >= 0)
        #expect(ftruncate(fd, size) == 0)
        close(fd)
        let outcome = try SqueezeBinary.run(["compress", tree.path("big"), "--level", "1", "--block-size", "4M"], timeout: 600)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let output = tree.path("big.squeezed/sparse.bin.gz")
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        let isize = data.suffix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        #expect(UInt64(UInt32(littleEndian: isize)) == UInt64(size) % (1 << 32))
        // One pass: gzip -dc checks the CRC and ISIZE as -t does, and pipefail keeps its verdict.
        let check = try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", "set -o pipefail; n=$(gzip -dc \"$1\" | wc -c) && [ \"$n\" -eq \"$2\" ]", "bash", output, "\(size)"], timeout: 600)
        #expect(check.status == 0, "\(check.stderr)")
    }
}
