import Foundation
import Testing

/// The offset table (docs/format.md) on the coordinator's outputs: `squeeze compress` and
/// `squeeze submit` give a big file's member the table, with the very bytes the drop-in writes
/// for that file, whatever the number of workers or the storage mode; a one-block file gets
/// none; a stitcher that writes a table other than the coordinator's is refused.
@Suite("the offset table on compress and submit", .serialized)
struct CoordinatorTableTests {
    /// Runs a bash script with `$S` the squeeze binary, in the tree.
    private static func shell(_ script: String, in tree: TestTree) throws -> SqueezeBinary.Outcome {
        let prelude = "set -euo pipefail; S='\(SqueezeBinary.url.path)'\ncd '\(tree.path(""))'\n"
        return try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", prelude + script], timeout: 900)
    }

    /// data/src: `big` (10 MB of words and random runs: 20 blocks of 512 KiB, three 4 MiB spans
    /// at level 1), `sub/mid` (3 blocks) and `small` (one block).
    private static let makeData = """
        mkdir -p data/src/sub
        python3 - data/src <<'PY'
        import random, sys
        rng = random.Random(42)
        words = [bytes(rng.choice(b"etaoinshrdlucmfwypvbgkqjxz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
        def make(path, rounds):
            with open(path, "wb") as f:
                for _ in range(rounds):
                    f.write(b" ".join(rng.choice(words) for _ in range(16_000)))
                    f.write(rng.randbytes(60_000))
        make(sys.argv[1] + "/big", 75)
        make(sys.argv[1] + "/sub/mid", 8)
        open(sys.argv[1] + "/small", "wb").write(b"one block\\n" * 100)
        PY
        """

    /// Exits 1 unless FILE's header has the extra field with the 'Sq' subfield.
    private static let hasTable = #"python3 -c 'import sys; b = open(sys.argv[1], "rb").read(14); sys.exit(0 if b[3] & 4 and b[12:14] == b"Sq" else 1)'"#

    /// The drop-in's outputs of big and sub/mid at LEVEL, written to files: with the table
    /// (mid's three blocks make one span at level 1, so no table there).
    private static func dropIn(level: String) -> String {
        """
        "$S" -\(level) -c data/src/big > big\(level).gz
        "$S" -\(level) -c data/src/sub/mid > mid\(level).gz
        \(hasTable) big\(level).gz
        [ \(level) = 1 ] || \(hasTable) mid\(level).gz
        """
    }

    /// Checks the outputs in folder OUT against the drop-in's at LEVEL.
    private static func same(_ out: String, level: String) -> String {
        """
        cmp big\(level).gz \(out)/big.gz || { echo "\(out): big.gz is not the drop-in's" >&2; exit 1; }
        cmp mid\(level).gz \(out)/sub/mid.gz || { echo "\(out): sub/mid.gz is not the drop-in's" >&2; exit 1; }
        if \(hasTable) \(out)/small.gz; then echo "\(out): a one-block file has a table" >&2; exit 1; fi
        gzip -t \(out)/big.gz \(out)/sub/mid.gz && pigz -t \(out)/big.gz \(out)/sub/mid.gz
        """
    }

    @Test("compress at levels 0, 1 and 6, with 1 and 4 workers and with remote in-process workers: big files carry the table, byte for byte the drop-in's; gzip and pigz read them, squeeze index uses the table, -dc finds nothing wrong; a one-block file has none; --tar too")
    func compressWritesTheDropInsBytes() throws {
        let tree = try TestTree()
        var script = Self.makeData + "\n"
        for level in ["0", "1", "6"] {
            script += Self.dropIn(level: level) + "\n"
            for (name, options) in [("w1", "--workers 1"), ("w4", "--workers 4"), ("remote", "--workers 2 --storage remote")] {
                script += "\"$S\" compress data/src -o out\(level)-\(name) --level \(level) \(options) > /dev/null\n"
                script += Self.same("out\(level)-\(name)", level: level) + "\n"
            }
            script += """
                "$S" index out\(level)-w4/big.gz 2> index\(level).says
                "$S" -dc out\(level)-w4/big.gz 2> dc\(level).err | cmp - data/src/big
                [ ! -s dc\(level).err ] || { echo "level \(level): squeeze -dc said something:" >&2; cat dc\(level).err >&2; exit 1; }

                """
        }
        script += """
            "$S" compress data/src --tar -o src.tar.gz > /dev/null
            \(Self.hasTable) src.tar.gz
            gzip -t src.tar.gz && pigz -t src.tar.gz
            mkdir back && tar -xzf src.tar.gz -C back && cmp back/src/big data/src/big
            echo done
            """
        let made = try Self.shell(script, in: tree)
        #expect(made.status == 0 && made.stdout.contains("done"), "\(made.stdout)\n\(made.stderr)")
        for level in ["0", "1", "6"] {
            let says = try String(contentsOfFile: tree.path("index\(level).says"), encoding: .utf8)
            #expect(says.contains("from its offset table"), "level \(level): \(says)")
        }
    }

    @Test("submit to a shared-storage cluster (stitched in several checked segments; level 0 placed) and to a remote one: the drop-in's bytes, no file joined by the coordinator, no stitch refused",
          arguments: ["6", "1", "0"])
    func submitWritesTheDropInsBytes(level: String) throws {
        let tree = try TestTree()
        let made = try Self.shell(Self.makeData + "\n" + Self.dropIn(level: level), in: tree)
        try #require(made.status == 0, "\(made.stderr)")

        // Two keys: two principals, so each checks what the other stitched. Whole files up to
        // 2 MiB: `big` (12 MB) is cut and stitched, `sub/mid` (1.3 MB) is whole in its batch.
        let keys = try CurveKeys.principals(["w1", "w2"], in: tree)
        let shared = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                     coordinatorArguments: keys.coordinatorArguments + ["--stitch-segment", "64K", "--whole-file-size", "2M"],
                                     clientArguments: keys.clientArguments("client"))
        for name in ["w1", "w2"] { try shared.addWorker(id: name, arguments: ["--storage", "shared"] + keys.clientArguments(name)) }
        try #require(shared.waitForWorkers(2))
        let sharedRun = try shared.submitAndWait(["src", "-o", "out-shared", "--level", level, "--json"])
        #expect(sharedRun.status == 0, "\(sharedRun.stderr)")
        let summary = try #require(JobEvents.finished(sharedRun.stdout))
        #expect(summary["filesJoinedByCoordinator"] as? Int == 0, "\(summary)")
        let status = try shared.status()
        #expect(status.refusedStitches == 0 && status.malformedMessages == 0, "\(status)")
        #expect(((status.stitchChecksByWorkers ?? 0) > 0) == (level != "0"), "\(status)")

        let remote = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0)
        for name in ["r1", "r2"] { try remote.addWorker(id: name, arguments: ["--storage", "remote"]) }
        try #require(remote.waitForWorkers(2))
        let remoteRun = try remote.submitAndWait(["src", "-o", "out-remote", "--level", level])
        #expect(remoteRun.status == 0, "\(remoteRun.stderr)")

        let checked = try Self.shell(Self.same("data/out-shared", level: level) + "\n" + Self.same("data/out-remote", level: level)
            + "\n\"$S\" index data/out-shared/big.gz\necho done", in: tree)
        #expect(checked.status == 0 && checked.stdout.contains("done"), "\(checked.stdout)\n\(checked.stderr)")
        #expect(checked.stderr.contains("from its offset table"), "\(checked.stderr)")
    }

    @Test("a stitcher that copies every piece right but writes a lying table: the header's check refuses it, the coordinator joins the file, and the output is the drop-in's",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func aLyingTableIsRefused() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        let made = try Self.shell(Self.makeData + "\n" + Self.dropIn(level: "6"), in: tree)
        try #require(made.status == 0, "\(made.stderr)")
        let (cluster, bad) = try TestCluster.withHostileStitcher(python: python, mode: "table-bad", in: tree)

        let outcome = try cluster.submitAndWait(["src", "--level", "6", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(bad.stdout.contains("stitched"), "the hostile worker was given no segment: \(bad.stdout)")
        let summary = try #require(JobEvents.finished(outcome.stdout))
        #expect(summary["state"] as? String == "completed")
        #expect((summary["filesJoinedByCoordinator"] as? Int ?? 0) >= 1, "\(summary)")
        let status = try cluster.status()
        #expect((status.refusedStitches ?? 0) >= 1, "\(status)")
        // Refused for the header's bytes alone (the check of 0..<its length): every piece was copied right.
        let log = cluster.coordinator.stderr
        #expect(log.contains("stitch refused:") && log.contains("bytes 0..<"), "\(log)")

        let checked = try Self.shell(Self.same("data/src.squeezed", level: "6") + "\necho done", in: tree)
        #expect(checked.status == 0 && checked.stdout.contains("done"), "\(checked.stdout)\n\(checked.stderr)")
    }
}
