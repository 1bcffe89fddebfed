import Foundation
import Glibc
import Testing

/// Checks an output tree against its source with the system gzip.
enum TreeCheck {
    /// Checks every regular file of `source` against `destination/<path>.gz`: `gzip -t`
    /// passes, `gzip -dc` gives back the exact bytes, there is exactly one `.gz` per file and
    /// no temporary is left. Works for any file name bytes. Returns the number of files.
    @discardableResult
    static func verify(source: String, destination: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let script = #"""
        set -u
        cd "$1" || exit 9
        n=0
        while IFS= read -r -d '' f; do
          gzip -t "$2/$f.gz" || { echo "gzip -t failed: $f"; exit 1; }
          gzip -dc "$2/$f.gz" | cmp -s - "$f" || { echo "content differs: $f"; exit 1; }
          n=$((n+1))
        done < <(find . -type f -print0)
        outs=$(find "$2" -type f -name '*.gz' -print0 | tr -cd '\0' | wc -c)
        [ "$outs" -eq "$n" ] || { echo "expected $n outputs, found $outs"; exit 1; }
        left=$(find "$2" -name '.squeeze-tmp-*' -print0 | tr -cd '\0' | wc -c)
        [ "$left" -eq 0 ] || { echo "$left temporaries left"; exit 1; }
        echo "$n"
        """#
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, "verify", source, destination], timeout: 600)
        #expect(outcome.status == 0, "\(outcome.stdout) \(outcome.stderr)", sourceLocation: sourceLocation)
        return Int(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Temporaries (`.squeeze-tmp-*`) under `folder`.
    static func temporaries(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if (path as NSString).lastPathComponent.hasPrefix(".squeeze-tmp-") { found.append(path) }
        }
        return found
    }

    /// Inode, size and modification time of every regular file under `folder`, by relative
    /// path: a file written again (renamed over, or rewritten in place) changes them.
    static func fingerprints(_ folder: String) throws -> [String: [Int]] {
        var result: [String: [Int]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let path = enumerator?.nextObject() as? String {
            var info = stat()
            guard stat(folder + "/" + path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            result[path] = [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        }
        return result
    }
}
