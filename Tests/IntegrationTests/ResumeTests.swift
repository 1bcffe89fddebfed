import Foundation
import Glibc
import Testing

/// The coordinator's journal (`--state`): a coordinator killed mid-job resumes it when it comes
/// back, keeping every output it had published; a journal it cannot trust stops it cold.
@Suite("resume after a crash", .serialized)
struct ResumeTests {
    @Test("a coordinator SIGKILLed a third into a job resumes it on restart: its submit follows through and exits 0, nothing published before is written again, every output round-trips")
    func resumeAfterKill() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 3000, bytesPerFile: 6000)
        try TestCorpus.make(at: tree.path("data/src/big"), files: 1, bytesPerFile: 24 << 20, seed: 11)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2)
        let (clients, workers) = (cluster.clientEndpoint, cluster.workerEndpoint)
        let submit = try cluster.submit("submit", ["src", "--json", "--level", "9"])
        let destination = tree.path("data/src.squeezed")
        // A third of the files published (small files go in bundles, after the big one's items).
        try #require(Poll.until(timeout: 120) { ((try? Self.published(in: destination).count) ?? 0) >= 1000 })
        cluster.coordinator.signal(SIGKILL)
        _ = cluster.coordinator.wait(timeout: 10)
        let before = try Self.published(in: destination)
        #expect(before.count > 100, "too few outputs before the kill to show anything: \(before.count)")

        try cluster.startCoordinator(clients: clients, workers: workers)
        #expect(submit.wait(timeout: 300) == 0, "\(submit.stderr)")
        #expect(submit.stderr.contains("following job"), "\(submit.stderr)")
        let finished = try #require(JobEvents.finished(submit.stdout))
        #expect(finished["state"] as? String == "completed")
        #expect(finished["filesCompressed"] as? Int == 3001)
        let kept = finished["filesKept"] as? Int ?? 0
        #expect(kept >= before.count, "kept \(kept) of \(before.count) published before the kill")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: destination) == 3001)
        let after = try TreeCheck.fingerprints(destination)
        let rewritten = before.filter { after[$0.key] != $0.value }.map(\.key)
        #expect(rewritten.isEmpty, "written again: \(rewritten.prefix(5))")
        #expect(TreeCheck.temporaries(under: destination).isEmpty)

        let id = try #require(finished["jobID"] as? Int)
        let attach = try cluster.attach("attach", ["\(id)", "--json"])
        #expect(attach.wait(timeout: 30) == 0, "\(attach.stderr)")

        // The journal lists the 3,001 outputs (one recorded but not yet in place at the kill is
        // redone and listed again) in a row per folder and transaction: here the writers record
        // what each flush published, several files a row, not one.
        cluster.coordinator.signal(SIGTERM)
        #expect(cluster.coordinator.wait(timeout: 30) != nil)
        let journal = try #require(cluster.stateFolder) + "/journal.sqlite"
        let rows = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", """
            import sqlite3, sys
            rows, files = sqlite3.connect(sys.argv[1]).execute(
                "SELECT count(*), coalesce(sum(count), 0) FROM publishedGroup WHERE job = ?", (int(sys.argv[2]),)).fetchone()
            print(rows, files)
            """, journal, "\(id)"])
        #expect(rows.status == 0, "\(rows.stderr)")
        let counts = rows.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(counts.count == 2 && counts[1] >= 3001 && counts[0] * 3 <= counts[1], "rows and records: \(rows.stdout)")
    }

    @Test("a source file changed while the coordinator was down is compressed again over the job's own output")
    func changedSourceIsRedone() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 3000, bytesPerFile: 6000)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1)
        let (clients, workers) = (cluster.clientEndpoint, cluster.workerEndpoint)
        let submit = try cluster.submit("submit", ["src", "--json", "--level", "9"])
        try #require(submit.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.3 })
        cluster.coordinator.signal(SIGKILL)
        _ = cluster.coordinator.wait(timeout: 10)
        let destination = tree.path("data/src.squeezed")
        let published = try Self.published(in: destination).keys.sorted()
        let changed = try #require(published.first)
        let source = tree.path("data/src/" + String(changed.dropLast(3)))
        try Data("changed while the coordinator was down\n".utf8).write(to: URL(fileURLWithPath: source))

        try cluster.startCoordinator(clients: clients, workers: workers)
        #expect(submit.wait(timeout: 300) == 0, "\(submit.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: destination) == 3000)
    }

    @Test("a second coordinator on the same --state, and a damaged journal, are refused with the file named; the journal is left as it was")
    func journalRefusals() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 1, bytesPerFile: 100)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0)
        let state = try #require(cluster.stateFolder)
        let second = try SqueezeBinary.run(
            ["coordinator", "--listen", "tcp://127.0.0.1:0", "--workers-listen", "tcp://127.0.0.1:0", "--state", state], timeout: 30)
        #expect(second.status == 1)
        #expect(second.stderr.contains(state + "/journal.sqlite") && second.stderr.contains("in use"), "\(second.stderr)")
        #expect(cluster.coordinator.isRunning)

        let damaged = tree.path("damaged")
        try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: damaged + "/journal.sqlite"))
        let refused = try SqueezeBinary.run(
            ["coordinator", "--listen", "tcp://127.0.0.1:0", "--workers-listen", "tcp://127.0.0.1:0", "--state", damaged], timeout: 30)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(damaged + "/journal.sqlite") && refused.stderr.contains("damaged"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: damaged + "/journal.sqlite")) == garbage)
    }

    /// The outputs in place under `destination` (not the job's workspace), with their fingerprints.
    static func published(in destination: String) throws -> [String: [Int]] {
        try TreeCheck.fingerprints(destination).filter { $0.key.hasSuffix(".gz") && !$0.key.contains(".squeeze-tmp") }
    }
}
