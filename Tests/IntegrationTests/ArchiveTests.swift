import Foundation
import Glibc
import Testing

/// `compress --tar` and `submit --tar`: one `.tar.gz` of a folder, made by the workers.
@Suite("compress --tar and submit --tar", .serialized)
struct ArchiveTests {
    /// The varied tree plus what an archive must keep besides contents: an empty folder, a
    /// hard link, odd owners and mode bits, a name longer than ustar's 100 bytes with no
    /// place to split it, and a link target longer than 100 bytes.
    private static func makeTree(_ tree: TestTree) throws {
        try VariedTree.make(tree)
        #expect(mkdir(tree.path("src/empty-folder"), 0o750) == 0)
        #expect(chmod(tree.path("src/sizes/text-1"), 0o4751) == 0)
        #expect(chown(tree.path("src/sizes/text-1"), 1234, 5678) == 0)
        #expect(chown(tree.path("src/empty-folder"), 4_000_000, 4_000_001) == 0)
        #expect(link(tree.path("src/mixed/big.txt"), tree.path("src/hard-link-to-big")) == 0)
        let long = String(repeating: "n", count: 200)
        try tree.write("src/\(long)", Array("long name\n".utf8))
        try FileManager.default.createSymbolicLink(atPath: tree.path("src/long-target"), withDestinationPath: "../" + String(repeating: "t", count: 180))
        // An mtime before 1970 and one with no fraction. (Not both at once: libarchive reads a
        // negative pax time with a fraction as its seconds minus the fraction, where POSIX, GNU
        // tar and Python add it, so no archive extracts the same with all three.)
        var times = [timespec(tv_sec: -86_400 * 3, tv_nsec: 0), timespec(tv_sec: -86_400 * 3, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, tree.path("src/-leading-dash"), &times, 0) == 0)
        times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, tree.path("src/name with spaces.txt"), &times, 0) == 0)
    }

    private static func shell(_ script: String, in tree: TestTree) throws -> SqueezeBinary.Outcome {
        let prelude = "set -eo pipefail; S='\(SqueezeBinary.url.path)'; cd '\(tree.path(""))'\n"
        return try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", prelude + script], timeout: 300)
    }

    @Test("the same bytes with 1 and 4 workers; one gzip member; GNU tar, bsdtar, Python's tarfile and decompress give the tree back")
    func embedded() throws {
        let tree = try TestTree()
        try Self.makeTree(tree)
        let one = try SqueezeBinary.run(["compress", tree.path("src"), "--tar", "--workers", "1", "-o", tree.path("one.tar.gz")])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains("archive of "), "\(one.stdout)")
        let four = try SqueezeBinary.run(["compress", tree.path("src"), "--tar", "--workers", "4", "--block-size", "64K"])
        #expect(four.status == 0, "\(four.stderr)")
        // The default name, beside the folder; a smaller block size changes the bytes, so
        // the comparison is made at the same block size.
        #expect(FileManager.default.fileExists(atPath: tree.path("src.tar.gz")))
        let again = try SqueezeBinary.run(["compress", tree.path("src"), "--tar", "--workers", "4", "-o", tree.path("four.tar.gz")])
        #expect(again.status == 0, "\(again.stderr)")
        let oneBytes = try Data(contentsOf: URL(fileURLWithPath: tree.path("one.tar.gz")))
        #expect(oneBytes == (try Data(contentsOf: URL(fileURLWithPath: tree.path("four.tar.gz")))))

        let made = try Self.shell("""
            gzip -t one.tar.gz
            "$S" test one.tar.gz
            python3 -c '
            import sys, zlib
            data = open("one.tar.gz", "rb").read()
            d = zlib.decompressobj(31)
            d.decompress(data)
            sys.exit(0 if d.eof and not d.unused_data else "not exactly one member")'
            mkdir gnu bsd py
            tar -xzf one.tar.gz -C gnu
            bsdtar -xpzf one.tar.gz -C bsd
            python3 -c '
            import tarfile
            with tarfile.open("one.tar.gz") as archive:
                archive.extractall("py", filter="fully_trusted")'
            "$S" decompress one.tar.gz -o back
            """, in: tree)
        #expect(made.status == 0, "\(made.stderr)")
        let precise = try TreeEntries.of(tree.path("src"), precise: true)
        #expect(precise.contains { $0.contains(" link ") } && precise.contains { $0.contains(" special ") })
        #expect(try TreeEntries.of(tree.path("gnu/src"), precise: true) == precise)
        #expect(try TreeEntries.of(tree.path("bsd/src"), precise: true) == precise)
        #expect(try TreeEntries.of(tree.path("back/src"), precise: true) == precise)
        // tarfile sets times through floats (to about a microsecond): compared to the second.
        #expect(try TreeEntries.of(tree.path("py/src")) == (try TreeEntries.of(tree.path("src"))))
    }

    @Test("refused before any work: an existing archive without --force, an archive inside the folder, a file as the source")
    func refusals() throws {
        let tree = try TestTree()
        try tree.write("src/a.txt", Array("a\n".utf8))
        try tree.write("taken.tar.gz", Array("mine".utf8))
        let exists = try SqueezeBinary.run(["compress", tree.path("src"), "--tar", "-o", tree.path("taken.tar.gz")])
        #expect(exists.status == 1)
        #expect(exists.stderr.contains("already exists (use --force to replace it)"), "\(exists.stderr)")
        #expect(try String(contentsOfFile: tree.path("taken.tar.gz"), encoding: .utf8) == "mine")
        let inside = try SqueezeBinary.run(["compress", tree.path("src"), "--tar", "-o", tree.path("src/self.tar.gz")])
        #expect(inside.status == 1)
        #expect(inside.stderr.contains("inside the folder it archives"), "\(inside.stderr)")
        let file = try SqueezeBinary.run(["compress", tree.path("src/a.txt"), "--tar"])
        #expect(file.status == 1)
        #expect(file.stderr.contains("--tar archives a folder"), "\(file.stderr)")
        let forced = try SqueezeBinary.run(["compress", tree.path("src"), "--tar", "-o", tree.path("taken.tar.gz"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let listed = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/tar"), ["-tzf", tree.path("taken.tar.gz")])
        #expect(listed.stdout == "src/\nsrc/a.txt\n", "\(listed.stdout)")
        // No workspace or temporary is left beside the archives.
        let left = try FileManager.default.contentsOfDirectory(atPath: tree.path("")).filter { $0.hasPrefix(".squeeze") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("submit --tar: a cluster with a shared-storage and a remote worker makes the very bytes compress --tar makes")
    func cluster() throws {
        let tree = try TestTree()
        try Self.makeTree(tree)
        #expect(rename(tree.path("src"), tree.path("data-src")) == 0)
        #expect(mkdir(tree.path("data"), 0o755) == 0)
        #expect(rename(tree.path("data-src"), tree.path("data/src")) == 0)
        let local = try SqueezeBinary.run(["compress", tree.path("data/src"), "--tar", "-o", tree.path("local.tar.gz")])
        #expect(local.status == 0, "\(local.stderr)")

        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1)
        try cluster.addWorker(arguments: ["--storage", "remote"])
        try #require(cluster.waitForWorkers(2))
        let submitted = try cluster.submitAndWait(["src", "--tar", "-o", "out/src.tgz", "--block-size", "64K"])
        #expect(submitted.status == 1, "the archive's folder must exist")
        #expect(submitted.stderr.contains("cannot create the archive"), "\(submitted.stderr)")
        let outcome = try cluster.submitAndWait(["src", "--tar"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("archive of "), "\(outcome.stdout)")
        let remote = try Data(contentsOf: URL(fileURLWithPath: tree.path("data/src.tar.gz")))
        #expect(remote == (try Data(contentsOf: URL(fileURLWithPath: tree.path("local.tar.gz")))))
        let status = try cluster.status()
        #expect(status.workers.allSatisfy { $0.itemsDone > 0 }, "both workers compressed blocks: \(status.workers)")
    }

    @Test("submit --tar to shared-storage workers: blocks go by reference (headers, file ranges, zeros), checked by each other, nothing relayed, the very bytes compress --tar makes")
    func byReference() throws {
        let tree = try TestTree()
        try Self.makeTree(tree)
        try tree.write("src/mixed/spans-blocks.bin", (0..<(300 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        #expect(rename(tree.path("src"), tree.path("data-src")) == 0)
        #expect(mkdir(tree.path("data"), 0o755) == 0)
        #expect(rename(tree.path("data-src"), tree.path("data/src")) == 0)
        let local = try SqueezeBinary.run(["compress", tree.path("data/src"), "--tar", "--block-size", "64K", "-o", tree.path("local.tar.gz")])
        #expect(local.status == 0, "\(local.stderr)")

        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2, workerArguments: ["--storage", "shared"])
        let outcome = try cluster.submitAndWait(["src", "--tar", "--block-size", "64K", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let finished = try #require(JobEvents.finished(outcome.stdout), "\(outcome.stdout)")
        #expect(finished["bytesRelayed"] as? Int == 0, "\(finished)")
        let remote = try Data(contentsOf: URL(fileURLWithPath: tree.path("data/src.tar.gz")))
        #expect(remote == (try Data(contentsOf: URL(fileURLWithPath: tree.path("local.tar.gz")))))
        let status = try cluster.status()
        #expect(status.workers.allSatisfy { $0.itemsDone > 0 }, "both workers compressed blocks: \(status.workers)")
        #expect(status.malformedMessages == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: tree.path("data")).filter { $0.hasPrefix(".squeeze") }
        #expect(left.isEmpty, "\(left)")
    }
}
