import Foundation
import Testing

/// `squeeze index` against the tools that read its indexes: rapidgzip and Python's
/// indexed_gzip, from the virtual environment `make` installs them in (`make pydeps`).
@Suite("squeeze index", .serialized)
struct IndexCommandTests {
    /// The Python with rapidgzip and indexed_gzip: $SQUEEZE_PYTHON, else the Makefile's venv.
    private static var python: String {
        if let path = ProcessInfo.processInfo.environment["SQUEEZE_PYTHON"] { return path }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repository.appendingPathComponent(".build/py/bin/python").path
    }

    private static func shell(_ script: String, in tree: TestTree) throws -> SqueezeBinary.Outcome {
        let prelude = "set -euo pipefail; S='\(SqueezeBinary.url.path)'; PY='\(python)'; RG=\"$(dirname \"$PY\")/rapidgzip\"\ncd '\(tree.path(""))'\n"
        return try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", prelude + script], timeout: 600)
    }

    /// Reads FILE through INDEX with indexed_gzip and rapidgzip: the whole file, then 200
    /// random seeks of up to 64 KiB, each compared with ORIGINAL.
    private static let check = #"""
        import random, sys, indexed_gzip, rapidgzip
        gz, index, original = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read()
        rng = random.Random(41)
        seeks = [(rng.randrange(len(original) + 1), rng.randrange(1 << 16)) for _ in range(200)]
        with indexed_gzip.IndexedGzipFile(gz, index_file=index) as f:
            assert f.read() == original, "indexed_gzip: the whole file differs"
            for offset, length in seeks:
                f.seek(offset)
                assert f.read(length) == original[offset:offset + length], f"indexed_gzip: seek to {offset}"
        with rapidgzip.open(gz, parallelization=2) as f:
            f.import_index(open(index, "rb"))
            assert f.read() == original, "rapidgzip: the whole file differs"
            for offset, length in seeks:
                f.seek(offset)
                assert f.read(length) == original[offset:offset + length], f"rapidgzip: seek to {offset}"
        print("ok", len(original))
        """#

    @Test("indexes of squeeze's level 6 and level 1 outputs, of gzip's, and of two members: rapidgzip and indexed_gzip read them exactly")
    func readByBothTools() throws {
        let tree = try TestTree()
        try tree.write("check.py", Array(Self.check.utf8))
        let made = try Self.shell("""
            { seq 1 400000; head -c 3000000 /dev/urandom | base64; seq 7 3 900000; } > data
            "$S" -6 -c data > six.gz
            "$S" -1 -c data > one.gz
            gzip -6 -c data > foreign.gz
            { head -c 2000000 data | gzip -c; tail -c +2000001 data | "$S" -c; } > two.gz
            for f in six one foreign two; do
              "$S" index --spacing 256K $f.gz 2> $f.says
              "$PY" check.py $f.gz $f.gz.gzidx data
              "$RG" --import-index $f.gz.gzidx -d -c $f.gz | cmp - data
            done
            "$S" index -o six.idx --spacing 1M six.gz
            [ $(stat -c %s six.idx) -lt $(stat -c %s six.gz.gzidx) ]
            """, in: tree)
        #expect(made.status == 0, "\(made.stdout)\n\(made.stderr)")
        #expect(made.stdout.components(separatedBy: "ok ").count == 5, "\(made.stdout)")
        // squeeze's own files (written to a file, so with the table) are indexed from it, the others by decoding.
        for (name, fromTable) in [("six", true), ("one", true), ("foreign", false), ("two", false)] {
            let says = try String(contentsOfFile: tree.path("\(name).says"), encoding: .utf8)
            #expect(says.contains("from its offset table") == fromTable, "\(name): \(says)")
        }
    }

    @Test("not gzip: one line and exit 1; damaged: the decoder's words and exit 2 (a file with the table too, unless only its CRC is wrong: from the table nothing is decoded); an index that exists is kept without --force")
    func badInputs() throws {
        let tree = try TestTree()
        let made = try Self.shell("""
            seq 1 100000 > data
            "$S" -c < data > good.gz
            "$S" -c data > table.gz
            head -c -9 good.gz > cut.gz
            head -c -9 table.gz > tablecut.gz
            for f in good table; do
              python3 -c 'import sys; b = bytearray(open(sys.argv[1] + ".gz", "rb").read()); b[-8] ^= 1; open(sys.argv[1] + "crc.gz", "wb").write(b)' $f
            done
            echo not gzip > text.gz
            """, in: tree)
        #expect(made.status == 0, "\(made.stderr)")
        let text = try SqueezeBinary.run(["index", tree.path("text.gz")])
        #expect(text.status == 1 && text.stderr.contains("not in gzip format") && text.stderr.split(separator: "\n").count == 1, "\(text.stderr)")
        let fromTable = try SqueezeBinary.run(["index", tree.path("tablecrc.gz")])
        #expect(fromTable.status == 0 && fromTable.stderr.contains("from its offset table"), "\(fromTable.stderr)")
        let tested = try SqueezeBinary.run(["-t", tree.path("tablecrc.gz")])
        #expect(tested.status != 0 && tested.stderr.contains("incorrect data check"), "\(tested.stderr)")
        for (name, reason) in [("cut", "truncated"), ("goodcrc", "incorrect data check"), ("tablecut", "truncated")] {
            let damaged = try SqueezeBinary.run(["index", tree.path("\(name).gz")])
            #expect(damaged.status == 2 && damaged.stderr.contains(reason), "\(name): \(damaged.stderr)")
            #expect(!FileManager.default.fileExists(atPath: tree.path("\(name).gz.gzidx")), "\(name): an index was left")
        }
        #expect(try SqueezeBinary.run(["index", tree.path("good.gz")]).status == 0)
        let again = try SqueezeBinary.run(["index", tree.path("good.gz")])
        #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try SqueezeBinary.run(["index", "--force", tree.path("good.gz")]).status == 0)
    }
}
