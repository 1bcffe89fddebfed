import Foundation
import Glibc
import Testing

/// libzmq is loaded on first use, not at start: on a machine without it the gzip drop-in works
/// and so does `compress` of one small file, which needs no socket; a command that needs one
/// says what is missing.
@Suite("libzmq loaded on first use")
struct MissingLibraryTests {
    @Test("without libzmq (hidden in a mount namespace): the drop-in compresses and decompresses, compress does a small file; keygen and compress of a folder fail saying libzmq could not be loaded",
          .enabled(if: getuid() == 0, "needs root for a mount namespace"))
    func withoutLibzmq() throws {
        let tree = try TestTree()
        // The library's real file is covered with an empty one, in a mount namespace of the
        // script's own: the loader then finds a file too short to be a library.
        let script = """
            set -u
            cd "$T"
            lib=$(readlink -f "$(ldconfig -p | awk '$1 == "libzmq.so.5" { print $NF; exit }')")
            test -f "$lib" || { echo "no libzmq.so.5 to hide" >&2; exit 3; }
            head -c 300000 /dev/urandom > data
            yes 'a line of text, over and over' | head -c 700000 >> data
            unshare --mount --propagation private sh -c '
                mount --bind /dev/null "$0" || exit 4
                "$1" -k data; echo "dropin=$?"
                "$1" -d -c data.gz > back; echo "back=$?"
                "$1" keygen node --output .; echo "keygen=$?"
                "$1" compress data -o out; echo "compress-file=$?"
                mkdir folder && cp data folder/ && "$1" compress folder -o out-folder; echo "compress-folder=$?"
            ' "$lib" "$S"
            """
        let outcome = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "S='\(SqueezeBinary.url.path)'; T='\(tree.path(""))'\n" + script], timeout: 120)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for line in ["dropin=0", "back=0", "keygen=1", "compress-file=0", "compress-folder=1"] {
            #expect(outcome.stdout.contains(line), "\(outcome.stdout) \(outcome.stderr)")
        }
        #expect(FileManager.default.contentsEqual(atPath: tree.path("data"), andPath: tree.path("back")))
        #expect(try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["gzip", "-t", tree.path("data.gz")]).status == 0)
        // The same member either way: the drop-in's and compress's outputs are made alike.
        #expect(FileManager.default.contentsEqual(atPath: tree.path("data.gz"), andPath: tree.path("out/data.gz")))
        let missing = outcome.stderr.components(separatedBy: "libzmq could not be loaded").count - 1
        #expect(missing == 2, "each command that needs a socket says so: \(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tree.path("node.key")))
    }
}
