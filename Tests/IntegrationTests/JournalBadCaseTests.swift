import Foundation
import Glibc
import Testing

/// What the journal's bad cases look like to a user: a journal from a newer squeeze, and a full
/// disk under the journal while a job runs.
@Suite("journal bad cases", .serialized)
struct JournalBadCaseTests {
    @Test("a journal written by a newer squeeze is refused by the coordinator and by compress --resume, naming the file, and left as it was")
    func newerVersion() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 3, bytesPerFile: 1000)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0)
        let state = try #require(cluster.stateFolder)
        cluster.coordinator.signal(SIGTERM)
        #expect(cluster.coordinator.wait(timeout: 10) == 0)
        let journal = state + "/journal.sqlite"
        try Self.addMigration("v99-from-the-future", to: journal)
        let saved = try Data(contentsOf: URL(fileURLWithPath: journal))
        let refused = try SqueezeBinary.run(
            ["coordinator", "--listen", "tcp://127.0.0.1:0", "--workers-listen", "tcp://127.0.0.1:0", "--state", state], timeout: 30)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(journal) && refused.stderr.contains("newer squeeze") && refused.stderr.contains("v99-from-the-future"),
                "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == saved)

        // The same file as an unfinished compress's journal in DEST.
        let destination = tree.path("out")
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        let inDestination = destination + "/.squeeze-journal.sqlite"
        try saved.write(to: URL(fileURLWithPath: inDestination))
        let resumed = try SqueezeBinary.run(["compress", tree.path("data/src"), "-o", destination, "--resume"])
        #expect(resumed.status == 1)
        #expect(resumed.stderr.contains(inDestination) && resumed.stderr.contains("newer squeeze"), "\(resumed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inDestination)) == saved)
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination) == [".squeeze-journal.sqlite"])
    }

    @Test("compress --resume refuses a journal another compress holds, and a damaged one, naming the file and leaving it as it was")
    func compressRefusals() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("src"), files: 2000, bytesPerFile: 8000)
        let destination = tree.path("out")
        let command = ["compress", tree.path("src"), "-o", destination, "--workers", "1", "--level", "9", "--engine", "zlib"]
        let running = try BackgroundProcess("compress", arguments: command, in: tree.root)
        let journal = destination + "/.squeeze-journal.sqlite"
        try #require(Poll.until(timeout: 60) { ((try? ResumeTests.published(in: destination).count) ?? 0) > 0 || !running.isRunning })
        let second = try SqueezeBinary.run(command + ["--resume"])
        #expect(second.status == 1)
        #expect(second.stderr.contains(journal) && second.stderr.contains("in use by another process"), "\(second.stderr)")
        #expect(running.isRunning, "the first compress ended before the second tried: nothing was shown")
        running.signal(SIGKILL)
        _ = running.wait(timeout: 10)

        // Damaged with its WAL gone too: a live WAL would give SQLite the pages (the header
        // among them) this garbage overwrote.
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        try garbage.write(to: URL(fileURLWithPath: journal))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: journal + suffix) }
        let damaged = try SqueezeBinary.run(command + ["--resume"])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains(journal) && damaged.stderr.contains("damaged"), "\(damaged.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == garbage)
    }

    @Test("the disk under the journal fills while a job runs: the job fails naming the journal, nothing unrecorded is published, the coordinator stays up; with space again a restart opens the journal and completes the job, nothing published written twice",
          .enabled(if: geteuid() == 0, "needs root (mounts a small tmpfs for the journal)"))
    func fullDisk() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 3000, bytesPerFile: 6000)
        let state = tree.path("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try #require(try Self.shell("mount -t tmpfs -o size=4m squeeze-test-journal \"$1\"", state).status == 0)
        defer { _ = try? Self.shell("umount -l \"$1\"", state) }
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1, coordinatorArguments: ["--state", state])
        let submit = try cluster.submit("submit", ["src", "--json", "--level", "9"])
        try #require(submit.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.1 })
        // Fill what is left of the journal's file system.
        _ = try Self.shell("dd if=/dev/zero of=\"$1/filler\" bs=4k 2>/dev/null; sync", state)
        #expect(submit.wait(timeout: 120) == 1, "\(submit.stderr)")
        let finished = try #require(JobEvents.finished(submit.stdout))
        let message = finished["message"] as? String ?? ""
        #expect(finished["state"] as? String == "failed")
        #expect(message.contains(state + "/journal.sqlite") && message.contains("full"), "\(message)")
        #expect(cluster.coordinator.isRunning)
        #expect(try cluster.status().jobs.first?.state == .failed)
        let destination = tree.path("data/src.squeezed")
        #expect(TreeCheck.temporaries(under: destination).isEmpty)
        let check = try Self.shell("cd \"$1\" && find . -name '*.gz' -print0 | xargs -0 -r gzip -t", destination)
        #expect(check.status == 0, "\(check.stderr)")
        let published = try ResumeTests.published(in: destination)

        // Space again: the journal opens (consistent). Its end could not be recorded, so the job
        // is still running there: the restart resumes and completes it, writing nothing
        // published before again.
        try FileManager.default.removeItem(atPath: state + "/filler")
        cluster.coordinator.signal(SIGTERM)
        #expect(cluster.coordinator.wait(timeout: 10) == 0)
        try cluster.startCoordinator(clients: cluster.clientEndpoint, workers: cluster.workerEndpoint)
        try #require(Poll.until(timeout: 120) { (try? cluster.status().jobs.first.map { $0.state != .running }) == true })
        #expect(try cluster.status().jobs.first?.state == .completed)
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: destination) == 3000)
        let after = try TreeCheck.fingerprints(destination)
        #expect(published.allSatisfy { after[$0.key] == $0.value }, "an output published before was written again")
        #expect(TreeCheck.temporaries(under: destination).isEmpty)
    }

    /// Adds the id of a migration this build does not know to the journal at `path`, as a newer
    /// squeeze would have.
    private static func addMigration(_ identifier: String, to path: String) throws {
        let script = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('INSERT INTO grdb_migrations VALUES (?)', (sys.argv[2],)); c.commit()"
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, path, identifier], timeout: 30)
        try #require(outcome.status == 0, "\(outcome.stderr)")
    }

    private static func shell(_ script: String, _ argument: String) throws -> SqueezeBinary.Outcome {
        try ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", argument], timeout: 60)
    }
}
