import Foundation
import Testing

/// Squeeze's offset table (an extra subfield of the gzip header) on files the drop-in writes:
/// every decoder reads them unchanged, and squeeze decodes right whatever the table says.
@Suite("the offset table", .serialized)
struct OffsetTableTests {
    /// Runs a bash script with `$S` the squeeze binary, `$PY` the Python with rapidgzip, in the tree.
    private static func shell(_ script: String, in tree: TestTree) throws -> SqueezeBinary.Outcome {
        let python = ProcessInfo.processInfo.environment["SQUEEZE_PYTHON"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/py/bin/python").path
        let prelude = "set -euo pipefail; S='\(SqueezeBinary.url.path)'; PY='\(python)'\ncd '\(tree.path(""))'\n"
        return try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", prelude + script], timeout: 600)
    }

    /// 26 MB of words and random runs: several 4 MiB spans at level 1, and more than 12 MiB
    /// once compressed, so squeeze decodes it on every core.
    private static let makeData = """
        python3 - data <<'PY'
        import random, sys
        rng = random.Random(42)
        words = [bytes(rng.choice(b"etaoinshrdlucmfwypvbgkqjxz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
        with open(sys.argv[1], "wb") as f:
            for i in range(70):
                f.write(b" ".join(rng.choice(words) for _ in range(36_000)))
                f.write(rng.randbytes(150_000))
        PY
        """

    /// Exits 1 unless FILE's header has the extra field with the 'Sq' subfield.
    private static let hasTable = #"python3 -c 'import sys; b = open(sys.argv[1], "rb").read(14); sys.exit(0 if b[3] & 4 and b[12:14] == b"Sq" else 1)'"#

    @Test("files written at levels 0, 1, 6 and 9 carry the table, the same bytes with 1 and 4 threads; gzip, zcat, pigz, unpigz, igzip, libdeflate-gzip, Python's gzip and zlib, rapidgzip and bsdtar read them; level 1's table costs at most 0.1%")
    func everyDecoderReadsThem() throws {
        let tree = try TestTree()
        let made = try Self.shell(Self.makeData + """

            tar -cf data.tar data
            for l in 0 1 6 9; do
              "$S" -$l -p 1 -c data > l$l.gz
              "$S" -$l -p 4 -c data > l$l.p4.gz
              cmp l$l.gz l$l.p4.gz || { echo "level $l: other bytes with 4 threads" >&2; exit 1; }
              \(Self.hasTable) l$l.gz || { echo "level $l: no offset table" >&2; exit 1; }
              gzip -t l$l.gz
              gzip -dc l$l.gz | cmp - data
              zcat l$l.gz | cmp - data
              pigz -dc l$l.gz | cmp - data
              unpigz -c l$l.gz | cmp - data
              igzip -dc l$l.gz | cmp - data
              libdeflate-gzip -dc l$l.gz | cmp - data
              python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.decompress(open(sys.argv[1], "rb").read()))' l$l.gz | cmp - data
              python3 -c 'import zlib, sys; sys.stdout.buffer.write(zlib.decompressobj(31).decompress(open(sys.argv[1], "rb").read()))' l$l.gz | cmp - data
              "$(dirname "$PY")/rapidgzip" -P 2 -d -c l$l.gz | cmp - data
              "$S" -dc l$l.gz 2> l$l.err | cmp - data
              [ ! -s l$l.err ] || { echo "level $l: squeeze -dc said something:" >&2; cat l$l.err >&2; exit 1; }
              "$S" -$l -c data.tar > data.tar.gz
              \(Self.hasTable) data.tar.gz
              mkdir -p bsd$l && bsdtar -xzf data.tar.gz -C bsd$l && cmp bsd$l/data data
            done
            # From a pipe the size is not known ahead and the header cannot be written again: no table.
            "$S" -6 -c < data > piped.gz
            if \(Self.hasTable) piped.gz; then echo "a piped output has a table" >&2; exit 1; fi
            # Level 1's unprimed restarts every 4 MiB and the table cost at most 0.1% (level 1's
            # promise against gzip -1 is LevelPromiseTests' and the corpus benchmarks').
            "$S" -1 -c < data > piped1.gz
            [ $(stat -c %s l1.gz) -le $(( $(stat -c %s piped1.gz) * 1001 / 1000 )) ] || { echo "level 1's table costs more than 0.1%" >&2; exit 1; }
            echo done
            """, in: tree)
        #expect(made.status == 0 && made.stdout.contains("done"), "\(made.stdout)\n\(made.stderr)")
    }

    @Test("curl (Content-Encoding: gzip) and Chromium (fetch with Content-Encoding, DecompressionStream) read a file that carries the table")
    func webClientsReadThem() throws {
        let tree = try TestTree()
        try tree.write("serve.py", Array(#"""
            import http.server, os, socketserver, threading
            with open("pid", "w") as f:
                f.write(str(os.getpid()))
            threading.Timer(300, lambda: os._exit(1)).start()  # never outlives the test
            class Handler(http.server.SimpleHTTPRequestHandler):
                def end_headers(self):
                    if self.path.startswith("/encoded/"):
                        self.send_header("Content-Encoding", "gzip")
                    super().end_headers()
                def translate_path(self, path):
                    return super().translate_path(path.replace("/encoded/", "/", 1))
                def log_message(self, *args):
                    pass
            with socketserver.TCPServer(("127.0.0.1", 0), Handler) as server:
                print(server.server_address[1], flush=True)
                server.serve_forever()
            """#.utf8))
        try tree.write("page.html", Array(#"""
            <html><body><script>
            async function digest(stream) {
              const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
              const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
              return bytes.length + ":" + Array.from(hash, b => b.toString(16).padStart(2, "0")).join("");
            }
            (async () => {
              const viaStream = await digest((await fetch("six.gz")).body.pipeThrough(new DecompressionStream("gzip")));
              const viaEncoding = await digest((await fetch("encoded/six.gz")).body);
              document.body.setAttribute("data-result", viaStream + " " + viaEncoding);
            })().catch(e => document.body.setAttribute("data-result", "error " + e));
            </script></body></html>
            """#.utf8))
        let made = try Self.shell(Self.makeData + """

            "$S" -6 -c data > six.gz
            \(Self.hasTable) six.gz
            # The server's own pid (python3 may be a wrapper that forks it), and none of this script's pipes.
            python3 serve.py > port 2> server.err < /dev/null &
            for _ in $(seq 1 100); do [ -s port ] && [ -s pid ] && break; sleep 0.1; done
            trap 'kill -9 $(cat pid)' EXIT  # SIGKILL: the test's environment may ignore SIGTERM
            url=http://127.0.0.1:$(cat port)
            curl -sf --compressed $url/encoded/six.gz | cmp - data
            expected="$(stat -c %s data):$(sha256sum data | cut -d' ' -f1)"
            got=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \\
              --virtual-time-budget=30000 --dump-dom $url/page.html 2>/dev/null | grep -o 'data-result="[^"]*"')
            [ "$got" = "data-result=\\"$expected $expected\\"" ] || { echo "chromium: $got, expected $expected" >&2; exit 1; }
            echo done
            """, in: tree)
        #expect(made.status == 0 && made.stdout.contains("done"), "\(made.stdout)\n\(made.stderr)")
    }

    @Test("a table that lies: -dc, -d, decompress (a file, and a big file in a folder: on every core) give the data back and name it in one line, exit 0, as -t and squeeze test (a file, a folder) do; squeeze index decodes instead")
    func lyingTable() throws {
        let tree = try TestTree()
        let made = try Self.shell(Self.makeData + """

            "$S" -6 -c data > six.gz
            # The fourth span's length, one more: every point after it is off by a byte.
            python3 -c 'import sys; b = bytearray(open("six.gz", "rb").read()); b[12 + 4 + 5 + 3 * 4] ^= 1; open("lie.gz", "wb").write(b)'
            "$S" -dc lie.gz 2> dc.err | cmp - data
            cp lie.gz copy.gz && "$S" -d copy.gz 2> d.err && cmp copy data
            "$S" decompress lie.gz -o back 2> decompress.err && cmp back data
            mkdir -p tree.squeezed/sub && cp lie.gz tree.squeezed/sub/big.gz
            for i in 1 2 3 4 5; do seq 1 $i > small$i && "$S" -c small$i > tree.squeezed/small$i.gz; done
            "$S" decompress tree.squeezed 2> folder.err
            cmp tree/sub/big data && cmp tree/small3 small3
            "$S" index lie.gz 2> index.err
            "$S" -t lie.gz 2> t.err
            "$S" test lie.gz 2> test.err
            "$S" test tree.squeezed 2> testfolder.err
            """, in: tree)
        #expect(made.status == 0, "\(made.stdout)\n\(made.stderr)")
        for name in ["dc", "d", "decompress", "folder", "t", "test", "testfolder"] {
            let said = try String(contentsOfFile: tree.path("\(name).err"), encoding: .utf8)
            let lines = said.split(separator: "\n").filter { $0.contains("offset table") }
            #expect(lines.count == 1, "\(name): \(said)")
        }
        let index = try String(contentsOfFile: tree.path("index.err"), encoding: .utf8)
        #expect(index.contains("offset table") && index.contains("indexed by decoding") && index.contains("with a window"), "\(index)")
    }
}
