import Foundation
import Glibc
import Testing

/// `squeeze compress` keeps a journal in its destination while it runs, so the same command
/// with `--resume` finishes a run that was killed or interrupted, keeping what it had published.
@Suite("squeeze compress --resume", .serialized)
struct CompressResumeTests {
    static let journal = ".squeeze-journal.sqlite"

    @Test("compress SIGKILLed early in a job: a plain rerun is refused and points to --resume; --resume keeps every output published before (same inode and mtime), redoes a source changed meanwhile, round-trips, and leaves only .gz files")
    func resumeAfterKill() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("src"), files: 4500, bytesPerFile: 6000)
        try TestCorpus.make(at: tree.path("src/big"), files: 1, bytesPerFile: 24 << 20, seed: 11)
        let destination = tree.path("out")
        let command = ["compress", tree.path("src"), "-o", destination, "--workers", "2", "--level", "9", "--engine", "zlib", "--json"]
        let first = try BackgroundProcess("compress", arguments: command, in: tree.root)
        // The kill at 1,000 of 4,500 files: the rest is seconds of work, so the job still runs when
        // it lands. With 3,000 files one CI run saw the job end first (renames wait for the
        // journal's synced commits, so a slow sync can bring them in a burst).
        try #require(Poll.until(timeout: 120, every: 0.05) { ((try? ResumeTests.published(in: destination).count) ?? 0) >= 1000 || !first.isRunning })
        first.signal(SIGKILL)
        _ = first.wait(timeout: 10)
        let before = try ResumeTests.published(in: destination)
        #expect(before.count >= 1000 && before.count < 4501, "outputs before the kill: \(before.count)")
        #expect(FileManager.default.fileExists(atPath: destination + "/" + Self.journal))

        let plain = try SqueezeBinary.run(Array(command.dropLast()))
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("unfinished run") && plain.stderr.contains("--resume"), "\(plain.stderr)")
        #expect(try ResumeTests.published(in: destination) == before, "a refused rerun touched the outputs")

        let changedOutput = try #require(before.keys.filter { $0.hasPrefix("part-") }.sorted().first)
        let changedSource = tree.path("src/" + String(changedOutput.dropLast(3)))
        try Data("changed between the kill and the resume\n".utf8).write(to: URL(fileURLWithPath: changedSource))

        let resumed = try SqueezeBinary.run(command + ["--resume"], timeout: 300)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let finished = try #require(JobEvents.finished(resumed.stdout))
        #expect(finished["state"] as? String == "completed")
        #expect(finished["filesCompressed"] as? Int == 4501)
        let kept = finished["filesKept"] as? Int ?? 0
        #expect(kept == before.count - 1, "kept \(kept) of \(before.count) published before the kill, one of them changed since")
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: destination) == 4501)
        let after = try TreeCheck.fingerprints(destination)
        let rewritten = before.filter { after[$0.key] != $0.value }.map(\.key)
        #expect(rewritten == [changedOutput], "written again: \(rewritten.prefix(5))")
        let left = try FileManager.default.contentsOfDirectory(atPath: destination).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "left in DEST: \(left)")
    }

    @Test("Ctrl-C leaves the run resumable and says so; --resume with another level is refused naming both; the same options finish it; --force starts over")
    func resumeAfterInterrupt() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("src"), files: 2000, bytesPerFile: 8000)
        try TestCorpus.make(at: tree.path("src/big"), files: 1, bytesPerFile: 16 << 20, seed: 5)
        let destination = tree.path("out")
        let command = ["compress", tree.path("src"), "-o", destination, "--workers", "2", "--level", "9", "--engine", "zlib", "--json"]
        let first = try BackgroundProcess("compress", arguments: command, in: tree.root)
        try #require(first.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.2 })
        first.signal(SIGINT)
        #expect(first.wait(timeout: 60) == 1, "\(first.stderr)")
        #expect(JobEvents.finished(first.stdout)?["state"] as? String == "cancelled")
        #expect(first.stderr.contains("--resume"), "\(first.stderr)")
        #expect(TreeCheck.temporaries(under: destination).isEmpty)
        let before = try ResumeTests.published(in: destination)

        var otherLevel = command + ["--resume"]
        otherLevel[otherLevel.firstIndex(of: "9")!] = "6"
        let refused = try SqueezeBinary.run(otherLevel)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("level 9") && refused.stderr.contains("level 6"), "\(refused.stderr)")

        let resumed = try SqueezeBinary.run(command + ["--resume"], timeout: 300)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("src"), destination: destination) == 2001)
        let after = try TreeCheck.fingerprints(destination)
        #expect(before.allSatisfy { after[$0.key] == $0.value }, "an output published before the interrupt was written again")
        #expect(!FileManager.default.fileExists(atPath: destination + "/" + Self.journal))

        // A finished DEST: a plain rerun refuses every output and leaves no journal behind.
        let again = try SqueezeBinary.run(Array(command.dropLast()))
        #expect(again.status == 2)
        #expect(!FileManager.default.fileExists(atPath: destination + "/" + Self.journal))
        let forced = try SqueezeBinary.run(command + ["--force"], timeout: 300)
        #expect(forced.status == 0, "\(forced.stderr)")
        let replaced = try TreeCheck.fingerprints(destination)
        #expect(before.allSatisfy { replaced[$0.key]?[0] != $0.value[0] }, "--force kept an output")
    }
}
