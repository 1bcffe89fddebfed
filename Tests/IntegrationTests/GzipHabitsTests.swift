import Foundation
import Glibc
import Testing

/// `squeeze` without a subcommand, used the way people use gzip and pigz, through a shell.
@Suite("squeeze as gzip and pigz", .serialized)
struct GzipHabitsTests {
    /// Runs a bash script with `$S` the squeeze binary and `$T` the tree's folder.
    private static func shell(_ script: String, in tree: TestTree, timeout: TimeInterval = 300) throws -> SqueezeBinary.Outcome {
        let prelude = "set -o pipefail; S=\(quoted(SqueezeBinary.url.path)); T=\(quoted(tree.path("")))\ncd \"$T\"\n"
        return try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", prelude + script], timeout: timeout)
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    @Test("tar -I squeeze both ways: the varied tree comes back entry by entry; one gzip member that gzip reads")
    func tarBothWays() throws {
        let tree = try TestTree()
        try VariedTree.make(tree)
        #expect(mkdir(tree.path("src/empty-folder"), 0o750) == 0)
        #expect(chmod(tree.path("src/sizes/text-1"), 0o600) == 0)
        let made = try Self.shell("""
            tar -I "$S" -cf x.tgz -C src .
            mkdir back viagzip
            tar -I "$S" -xf x.tgz -C back
            tar -xzf x.tgz -C viagzip
            gzip -t x.tgz
            "$S" test x.tgz
            """, in: tree)
        #expect(made.status == 0, "\(made.stderr)")
        let source = try TreeEntries.of(tree.path("src"))
        #expect(source.count > 70)
        #expect(source.contains { $0.contains(" special ") } && source.contains { $0.contains(" link ") })
        #expect(try TreeEntries.of(tree.path("back")) == source)
        #expect(try TreeEntries.of(tree.path("viagzip")) == source)
    }

    @Test("stdin to stdout and -d back for 0 B, 1 B and 256 MB; the same bytes with 1 and 4 threads; gzip reads them")
    func streams() throws {
        let tree = try TestTree()
        let made = try Self.shell("""
            : > empty; printf x > one
            python3 - big <<'PY'
            import random, sys
            rng = random.Random(5)
            words = [bytes(rng.choice(b"etaoinshrdlucmfwypvbgkqjxz") for _ in range(rng.randint(2, 9))) for _ in range(4000)]
            chunk = bytearray(b" ".join(rng.choice(words) for _ in range(200_000)))
            with open(sys.argv[1], "wb") as f:
                for i in range(256 * (1 << 20) // len(chunk) + 1):
                    chunk[rng.randrange(len(chunk))] = rng.randrange(256)
                    f.write(chunk if i % 5 else chunk + rng.randbytes(1 << 16))
                f.truncate(256 << 20)
            PY
            for f in empty one big; do
              "$S" < $f > $f.gz
              "$S" -d < $f.gz | cmp - $f || { echo "squeeze -d differs: $f" >&2; exit 1; }
              gzip -dc < $f.gz | cmp - $f || { echo "gzip -dc differs: $f" >&2; exit 1; }
              [ $f = big ] || "$S" -p 1 -c < $f | cmp - $f.gz || { echo "-p 1 gives other bytes: $f" >&2; exit 1; }
              "$S" -p 4 < $f | cmp - $f.gz || { echo "-p 4 gives other bytes: $f" >&2; exit 1; }
              "$S" test $f.gz
            done
            gzip -6 -c big | wc -c > gzip-size
            """, in: tree, timeout: 600)
        #expect(made.status == 0, "\(made.stderr)")
        let squeezed = try #require(Self.status(tree.path("big.gz"))).st_size
        let gzipped = try #require(Int(String(contentsOfFile: tree.path("gzip-size"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(squeezed <= gzipped, "level 6 came out larger than gzip -6: \(squeezed) > \(gzipped)")
    }

    @Test("-d and -t read other tools' multi-member files: cat a.gz b.gz, and zero padding after them")
    func multiMember() throws {
        let tree = try TestTree()
        let made = try Self.shell("""
            seq 1 100000 > a; seq 5 7 900000 > b
            gzip -c a > a.gz; "$S" -c b > b.gz
            cat a.gz b.gz > ab.gz; head -c 512 /dev/zero >> ab.gz
            "$S" -dc ab.gz | cmp - <(cat a b)
            "$S" -t ab.gz
            "$S" -d < ab.gz | cmp - <(cat a b)
            """, in: tree)
        #expect(made.status == 0, "\(made.stderr)")
    }

    @Test("files in place: FILE becomes FILE.gz with its mode and mtime, -k keeps it, -d brings it back, -l lists, -r descends")
    func filesInPlace() throws {
        let tree = try TestTree()
        var data = TestData(seed: 3)
        try tree.write("a.txt", data.text(200_000))
        try tree.write("dir/b.txt", data.text(3000))
        try tree.write("dir/sub/c.txt", data.text(70_000))
        #expect(try Self.shell("mkdir -p dir/sub && seq 1 10 | gzip > dir/sub/already.gz", in: tree).status == 0)
        try tree.write("plain", data.text(10))
        #expect(chmod(tree.path("a.txt"), 0o640) == 0)
        var times = [timespec(tv_sec: 1_500_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 123_000_000)]
        #expect(utimensat(AT_FDCWD, tree.path("a.txt"), &times, 0) == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: tree.path("a.txt")))

        #expect(try Self.shell("\"$S\" a.txt", in: tree).status == 0)
        #expect(Self.status(tree.path("a.txt")) == nil)
        let packed = try #require(Self.status(tree.path("a.txt.gz")))
        #expect(packed.st_mode & 0o7777 == 0o640)
        #expect(packed.st_mtim.tv_sec == 1_500_000_000 && packed.st_mtim.tv_nsec == 123_000_000)
        #expect(try Self.shell("gzip -t a.txt.gz && gzip -lN a.txt.gz | grep -q 'a.txt$'", in: tree).status == 0)

        let listed = try Self.shell("\"$S\" -l a.txt.gz", in: tree)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("200000") && listed.stdout.contains("uncompressed_name") && listed.stdout.contains(" a.txt"), "\(listed.stdout)")

        #expect(try Self.shell("\"$S\" -d a.txt.gz", in: tree).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tree.path("a.txt"))) == original)
        let restored = try #require(Self.status(tree.path("a.txt")))
        #expect(restored.st_mode & 0o7777 == 0o640 && restored.st_mtim.tv_sec == 1_500_000_000)
        #expect(Self.status(tree.path("a.txt.gz")) == nil)

        // -k keeps the input; an existing output is not overwritten without -f (exit 2).
        #expect(try Self.shell("\"$S\" -k a.txt", in: tree).status == 0)
        #expect(Self.status(tree.path("a.txt")) != nil && Self.status(tree.path("a.txt.gz")) != nil)
        let exists = try Self.shell("\"$S\" -k a.txt", in: tree)
        #expect(exists.status == 2 && exists.stderr.contains("a.txt.gz: already exists; not overwritten"), "\(exists.stderr)")
        #expect(try Self.shell("\"$S\" -kf -1 a.txt", in: tree).status == 0)

        // -d on a name without the suffix is skipped with gzip's message.
        let unknown = try Self.shell("\"$S\" -d plain", in: tree)
        #expect(unknown.status == 2 && unknown.stderr.contains("plain: unknown suffix -- ignored"), "\(unknown.stderr)")
        #expect(Self.status(tree.path("plain")) != nil)

        // A folder needs -r; then every file under it is compressed, .gz files left alone.
        let folder = try Self.shell("\"$S\" dir", in: tree)
        #expect(folder.status == 2 && folder.stderr.contains("dir: is a directory -- ignored"), "\(folder.stderr)")
        #expect(try Self.shell("\"$S\" -r dir", in: tree).status == 0)
        for name in ["dir/b.txt.gz", "dir/sub/c.txt.gz", "dir/sub/already.gz"] {
            #expect(Self.status(tree.path(name)) != nil, "\(name) missing")
        }
        #expect(Self.status(tree.path("dir/b.txt")) == nil && Self.status(tree.path("dir/sub/already.gz.gz")) == nil)
        #expect(try Self.shell("\"$S\" -dr dir && test -f dir/sub/c.txt && test -f dir/sub/already", in: tree).status == 0)

        // A file with another hard link is left alone without -f, as gzip does.
        #expect(link(tree.path("plain"), tree.path("plain-link")) == 0)
        let linked = try Self.shell("\"$S\" plain", in: tree)
        #expect(linked.status == 2 && linked.stderr.contains("plain: has 1 other link -- unchanged"), "\(linked.stderr)")
    }

    @Test("big files decode on every core and come back byte for byte: squeeze's, pigz's and gzip's, several members, -dc, -d and decompress; a damaged big one is refused")
    func bigFilesInParallel() throws {
        let tree = try TestTree()
        let made = try Self.shell("""
            { seq 1 3000000; head -c 12000000 /dev/urandom | base64; seq 5 7 9000000; } > data
            "$S" -6 -c data > six.gz
            pigz -6 -c data > pigz.gz
            gzip -1 -c data > gzip.gz
            cat six.gz gzip.gz six.gz > three.gz
            cat data data data > data3
            for f in six pigz gzip; do "$S" -dc $f.gz | cmp - data; done
            "$S" -dc -p 3 three.gz | cmp - data3
            "$S" -d -k six.gz -c > /dev/null
            cp six.gz copy.gz && "$S" -d copy.gz && cmp copy data
            "$S" decompress three.gz -o back && cmp back data3
            python3 -c 'import sys; b = bytearray(open("six.gz", "rb").read()); b[len(b) // 2] ^= 0x10; open("bad.gz", "wb").write(b)'
            if "$S" -dc bad.gz > /dev/null 2> bad.err; then echo "a damaged file decoded"; exit 1; fi
            grep -q "bad.gz: " bad.err
            """, in: tree)
        #expect(made.status == 0, "\(made.stdout)\n\(made.stderr)")
    }

    @Test("a truncated, corrupted or padded-with-garbage .gz: -t and -d name it and why, exit 2, leave no output and keep the input")
    func badInputs() throws {
        let tree = try TestTree()
        let made = try Self.shell("""
            seq 1 200000 > src
            "$S" -c src > good.gz
            head -c -9 good.gz > truncated.gz
            python3 -c 'import sys; b = bytearray(open("good.gz", "rb").read()); b[-8] ^= 1; open("crc.gz", "wb").write(b)'
            { cat good.gz; echo garbage; } > garbage.gz
            echo not gzip > text.gz
            """, in: tree)
        #expect(made.status == 0, "\(made.stderr)")
        let reasons = ["truncated": "truncated", "crc": "incorrect data check", "garbage": "trailing garbage", "text": "not in gzip format"]
        for (name, reason) in reasons {
            let tested = try Self.shell("\"$S\" -t \(name).gz", in: tree)
            #expect(tested.status == 2 && tested.stderr.contains("\(name).gz: ") && tested.stderr.contains(reason), "\(name): \(tested.stderr)")
            let decompressed = try Self.shell("\"$S\" -d \(name).gz", in: tree)
            #expect(decompressed.status == 2 && decompressed.stderr.contains("\(name).gz: ") && decompressed.stderr.contains(reason), "\(name): \(decompressed.stderr)")
            #expect(Self.status(tree.path(name)) == nil, "\(name): a partial output was left")
            #expect(Self.status(tree.path("\(name).gz")) != nil)
        }
        #expect(TreeCheck.temporaries(under: tree.path("")).isEmpty)
        let piped = try Self.shell("\"$S\" -d < crc.gz > out", in: tree)
        #expect(piped.status == 2 && piped.stderr.contains("standard input: incorrect data check"), "\(piped.stderr)")
    }

    @Test("a terminal gets gzip's refusals: no compressed data written to it or read from it")
    func terminals() throws {
        let tree = try TestTree()
        // Python gives the child a pseudo-terminal as stdin and stdout.
        let made = try Self.shell("""
            python3 - "$S" <<'PY'
            import os, pty, sys
            def run(*args):
                pid, fd = pty.fork()
                if pid == 0:
                    os.execv(sys.argv[1], [sys.argv[1], *args])
                out = b""
                while True:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    out += chunk
                status = os.waitpid(pid, 0)[1]
                return os.waitstatus_to_exitcode(status), out.decode(errors="replace")
            code, out = run()
            assert code == 1 and "compressed data not written to a terminal" in out, (code, out)
            code, out = run("-d")
            assert code == 1 and "compressed data not read from a terminal" in out, (code, out)
            print("ok")
            PY
            """, in: tree)
        #expect(made.status == 0 && made.stdout.contains("ok"), "\(made.stdout) \(made.stderr)")
    }
}
