import Foundation
import Glibc
import Testing

/// `squeeze compress` of one small file runs without the embedded cluster (no coordinator,
/// sockets or journal), and a user cannot tell but by the time it takes: the same bytes,
/// mode, mtime, events and exit status as the cluster path gives.
@Suite("compress of one small file, without the cluster", .serialized)
struct SmallFileJobTests {
    /// Runs `squeeze compress` with the loader's log of the libraries it loads; the outcome,
    /// and whether libzmq was among them (the cluster path's sockets need it, nothing else does).
    private static func compress(_ arguments: [String], in tree: TestTree, run: String) throws -> (outcome: SqueezeBinary.Outcome, loadedZMQ: Bool) {
        let log = tree.path("loader-\(run)")
        let outcome = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["LD_DEBUG=files", "LD_DEBUG_OUTPUT=\(log)", SqueezeBinary.url.path, "compress"] + arguments)
        let logs = try FileManager.default.contentsOfDirectory(atPath: tree.path("")).filter { $0.hasPrefix("loader-\(run).") }
        let loaded = try logs.contains { try String(contentsOfFile: tree.path($0), encoding: .utf8).contains("libzmq.so") }
        return (outcome, loaded)
    }

    /// The events of a `--json` run, without what differs by design between two runs: the
    /// wall time, the destination's name, and the snapshots a cluster job that outlasts the
    /// progress interval sends on its clock (the direct path is done before any tick): of the
    /// `progress` events only the last, the job's final one, is compared.
    private static func events(_ stdout: String) -> [NSDictionary] {
        let parsed = JobEvents.parse(stdout)
        let lastProgress = parsed.lastIndex { $0["event"] as? String == "progress" }
        return parsed.enumerated().filter { index, event in
            event["event"] as? String != "progress" || index == lastProgress
        }.map { _, event in
            var event = event
            event["seconds"] = nil
            event["destination"] = nil
            if var failed = event["failed"] as? [[String: Any]] {
                for index in failed.indices { failed[index]["reason"] = (failed[index]["reason"] as? String)?.replacingOccurrences(of: "/cluster/", with: "/DEST/").replacingOccurrences(of: "/direct/", with: "/DEST/") }
                event["failed"] = failed
            }
            if let reason = event["reason"] as? String {
                event["reason"] = reason.replacingOccurrences(of: "/cluster/", with: "/DEST/").replacingOccurrences(of: "/direct/", with: "/DEST/")
            }
            return event as NSDictionary
        }
    }

    private static func attributes(_ path: String) throws -> (mode: mode_t, seconds: Int, nanoseconds: Int) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
        return (info.st_mode & 0o7777, info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
    }

    @Test("the same member, mode, mtime and events as the cluster path, with every setting",
          arguments: [[], ["--level", "1"], ["--level", "9"], ["--level", "0"], ["--engine", "zlib"], ["--engine", "isal"],
                      ["--block-size", "64K"], ["--workers", "1"], ["--workers", "5", "--block-size", "16K"]])
    func sameAsCluster(options: [String]) throws {
        let tree = try TestTree()
        var data = TestData(seed: 21)
        try tree.write("src/report.txt", data.text(600_000) + data.random(300_000))
        try tree.write("src/empty", [])
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 123_456_789), timespec(tv_sec: 1_000_000_000, tv_nsec: 123_456_789)]
        for name in ["report.txt", "empty"] {
            #expect(chmod(tree.path("src/\(name)"), 0o640) == 0)
            #expect(utimensat(AT_FDCWD, tree.path("src/\(name)"), &times, 0) == 0)
        }
        for name in ["report.txt", "empty"] {
            let source = tree.path("src/\(name)")
            let direct = try Self.compress([source, "-o", tree.path("direct"), "--json"] + options, in: tree, run: "direct-\(name)")
            let cluster = try Self.compress([source, "-o", tree.path("cluster"), "--json", "--storage", "shared"] + options, in: tree, run: "cluster-\(name)")
            #expect(direct.outcome.status == 0, "\(direct.outcome.stderr)")
            #expect(cluster.outcome.status == 0, "\(cluster.outcome.stderr)")
            #expect(!direct.loadedZMQ, "the small file went through the cluster")
            #expect(cluster.loadedZMQ, "--storage shared did not run the cluster")
            let output = try Data(contentsOf: URL(fileURLWithPath: tree.path("direct/\(name).gz")))
            #expect(output == (try Data(contentsOf: URL(fileURLWithPath: tree.path("cluster/\(name).gz")))), "\(name) \(options)")
            let (mode, seconds, nanoseconds) = try Self.attributes(tree.path("direct/\(name).gz"))
            #expect(mode == 0o640 && seconds == 1_000_000_000 && nanoseconds == 123_456_789)
            #expect(try Self.attributes(tree.path("cluster/\(name).gz")) == (mode, seconds, nanoseconds))
            #expect(Self.events(direct.outcome.stdout) == Self.events(cluster.outcome.stdout), "\(direct.outcome.stdout)\n\(cluster.outcome.stdout)")
            #expect(direct.outcome.stderr == cluster.outcome.stderr)
        }
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path("direct")) == 2)
        #expect(TreeCheck.temporaries(under: tree.path("direct")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: tree.path("direct/.squeeze-journal.sqlite")))
    }

    @Test("an output already there: refused (exit 2) with the cluster's message and events, replaced with --force")
    func existingOutput() throws {
        let tree = try TestTree()
        var data = TestData(seed: 22)
        try tree.write("src/a.txt", data.text(100_000))
        var runs: [String: SqueezeBinary.Outcome] = [:]
        for (name, options) in [("direct", [String]()), ("cluster", ["--storage", "shared"])] {
            let first = try Self.compress([tree.path("src/a.txt"), "-o", tree.path(name)] + options, in: tree, run: "\(name)-first")
            #expect(first.outcome.status == 0, "\(first.outcome.stderr)")
            let again = try Self.compress([tree.path("src/a.txt"), "-o", tree.path(name), "--json"] + options, in: tree, run: "\(name)-again")
            #expect(again.outcome.status == 2, "\(again.outcome.stderr)")
            #expect(again.loadedZMQ == (name == "cluster"))
            runs[name] = again.outcome
        }
        let direct = try #require(runs["direct"]), cluster = try #require(runs["cluster"])
        #expect(direct.stdout.contains("output \(tree.path("direct/a.txt.gz")) already exists (use --force to replace it)"), "\(direct.stdout)")
        let plain = try Self.compress([tree.path("src/a.txt"), "-o", tree.path("direct")], in: tree, run: "plain")
        #expect(plain.outcome.status == 2 && !plain.loadedZMQ)
        #expect(plain.outcome.stderr.contains("squeeze: a.txt: output \(tree.path("direct/a.txt.gz")) already exists (use --force to replace it)\n"), "\(plain.outcome.stderr)")
        #expect(Self.events(direct.stdout) == Self.events(cluster.stdout), "\(direct.stdout)\n\(cluster.stdout)")

        try tree.write("src/a.txt", data.text(50_000))
        let forced = try Self.compress([tree.path("src/a.txt"), "-o", tree.path("direct"), "--force"], in: tree, run: "forced")
        #expect(forced.outcome.status == 0, "\(forced.outcome.stderr)")
        #expect(!forced.loadedZMQ)
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: tree.path("direct")) == 1)
    }

    @Test("what only the cluster does goes to it: a bigger file, a folder, --trace, --resume, a storage mode, an earlier run's journal")
    func clusterWhenNeeded() throws {
        let tree = try TestTree()
        var data = TestData(seed: 23)
        try tree.write("src/a.txt", data.text(50_000))
        let limit: off_t = 32 << 20
        for (name, size) in [("limit.bin", limit), ("over.bin", limit + 1)] {
            try tree.write("sparse/\(name)", [])
            #expect(truncate(tree.path("sparse/\(name)"), size) == 0)
        }
        let atLimit = try Self.compress([tree.path("sparse/limit.bin"), "-o", tree.path("limit"), "--level", "1"], in: tree, run: "limit")
        #expect(atLimit.outcome.status == 0 && !atLimit.loadedZMQ, "\(atLimit.outcome.stderr)")
        let cases: [(String, [String])] = [
            ("over", [tree.path("sparse/over.bin"), "-o", tree.path("over"), "--level", "1"]),
            ("folder", [tree.path("src"), "-o", tree.path("folder")]),
            ("trace", [tree.path("src/a.txt"), "-o", tree.path("trace"), "--trace", tree.path("trace.json")]),
            ("resume", [tree.path("src/a.txt"), "-o", tree.path("resume"), "--resume"]),
            ("remote", [tree.path("src/a.txt"), "-o", tree.path("remote"), "--storage", "remote"]),
        ]
        for (name, arguments) in cases {
            let run = try Self.compress(arguments, in: tree, run: name)
            #expect(run.outcome.status == 0, "\(name): \(run.outcome.stderr)")
            #expect(run.loadedZMQ, "\(name) did not run the cluster")
        }
        // An earlier run's journal in the destination: the cluster path says what to do with it.
        try tree.write("journaled/.squeeze-journal.sqlite", [])
        let journaled = try Self.compress([tree.path("src/a.txt"), "-o", tree.path("journaled")], in: tree, run: "journaled")
        #expect(journaled.outcome.status == 1)
        #expect(journaled.outcome.stderr.contains("holds the journal of an unfinished run"), "\(journaled.outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tree.path("journaled/a.txt.gz")))
    }

    @Test("Ctrl-C: exit 130, and neither the output nor a temporary or workspace is left")
    func interrupted() throws {
        let tree = try TestTree()
        var data = TestData(seed: 24)
        let chunk = data.text(1 << 20)
        try tree.write("src/slow.txt", (0..<24).flatMap { _ in chunk })
        // zlib's level 9 on one thread: seconds, so the interrupt lands mid-file.
        let compress = try BackgroundProcess(
            "compress", arguments: ["compress", tree.path("src/slow.txt"), "-o", tree.path("out"), "--engine", "zlib", "--level", "9", "--workers", "1"],
            in: tree.root)
        let started = Poll.until(timeout: 60, every: 0.001) {
            // The output's temporary, in the job's workspace: the signal trap is armed by then.
            !compress.isRunning || TreeCheck.temporaries(under: tree.path("out")).contains { $0.contains("/") }
        }
        try #require(started && compress.isRunning, "the run ended before it could be interrupted: \(compress.stderr)")
        compress.signal(SIGINT)
        #expect(compress.wait(timeout: 60) == 130, "\(compress.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: tree.path("out"))
        #expect(left.isEmpty, "\(left)")
    }
}
