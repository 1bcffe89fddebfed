import Foundation
import Testing

/// Every entry of a tree as one line — path (hex of its bytes), type, mode, mtime in whole
/// seconds, and the content's SHA-256 or the link's target — for comparing a tree with its
/// copy entry by entry. Read by Python, which takes any name bytes as they are. `precise`
/// adds what an archive keeps too: mtimes to the nanosecond (links and folders included),
/// owners, and hard link counts.
enum TreeEntries {
    private static let script = """
        import hashlib, os, stat, sys
        root = os.fsencode(sys.argv[1])
        precise = sys.argv[2] == "precise"
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = os.path.join(folder, name)
                info = os.lstat(path)
                rel = os.path.relpath(path, root).hex()
                if precise:
                    print(rel, "precise", info.st_mtime_ns, info.st_uid, info.st_gid, info.st_nlink if stat.S_ISREG(info.st_mode) else 0)
                kind = stat.S_IFMT(info.st_mode)
                mode = oct(stat.S_IMODE(info.st_mode))
                if stat.S_ISLNK(info.st_mode):
                    print(rel, "link", os.readlink(path).hex())
                elif stat.S_ISREG(info.st_mode):
                    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
                    print(rel, "file", mode, int(info.st_mtime), digest)
                elif stat.S_ISDIR(info.st_mode):
                    print(rel, "dir", mode)
                else:
                    print(rel, "special", kind, mode, int(info.st_mtime))
        """

    /// The sorted entry lines of the tree at `root` (`precise`: see the type).
    static func of(_ root: String, precise: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, root, precise ? "precise" : "plain"])
        #expect(outcome.status == 0, "\(outcome.stderr)", sourceLocation: sourceLocation)
        return outcome.stdout.split(separator: "\n").map(String.init).sorted()
    }
}
