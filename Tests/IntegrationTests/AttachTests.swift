import Foundation
import Testing

/// `squeeze attach`: following a job that already runs, or has ended, from another client.
@Suite("attach", .serialized)
struct AttachTests {
    @Test("attach follows a detached job to its end with submit's view and exit status; an ended job gives its summary; an unknown one an error")
    func attachToDetachedJob() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 16, bytesPerFile: 2 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1)
        let detached = try cluster.submitAndWait(["src", "--detach", "--level", "9"])
        #expect(detached.status == 0, "\(detached.stderr)")
        let id = try #require(UInt64(detached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(detached.stdout)")

        let watcher = try cluster.attach("attach-1", ["\(id)", "--json"])
        #expect(watcher.wait(timeout: 300) == 0, "\(watcher.stderr)")
        let events = JobEvents.parse(watcher.stdout)
        // It starts from where the job stood: its totals, before anything else.
        #expect(events.first?["event"] as? String == "started")
        #expect(events.first?["files"] as? Int == 16)
        #expect(JobEvents.finished(watcher.stdout)?["state"] as? String == "completed")
        #expect(JobEvents.finished(watcher.stdout)?["filesCompressed"] as? Int == 16)
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 16)

        let late = try cluster.attach("attach-2", ["\(id)", "--json"])
        #expect(late.wait(timeout: 30) == 0, "\(late.stderr)")
        #expect(JobEvents.parse(late.stdout).count == 1)
        #expect(JobEvents.finished(late.stdout)?["filesCompressed"] as? Int == 16)

        let unknown = try cluster.attach("attach-3", ["\(id + 100)"])
        #expect(unknown.wait(timeout: 30) == 1)
        #expect(unknown.stderr.contains("no job \(id + 100)"), "\(unknown.stderr)")
    }

    @Test("a watcher leaving cancels nothing; the job's submitter still owns it")
    func watcherLeaves() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 16, bytesPerFile: 2 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1)
        let submit = try cluster.submit("submit", ["src", "--json", "--level", "9"])
        try #require(submit.waitForOutput(timeout: 60) { $0.contains("\"started\"") })
        let id = try #require(JobEvents.parse(submit.stdout).first?["jobID"] as? Int)
        let watcher = try cluster.attach("attach", ["\(id)", "--json"])
        try #require(watcher.waitForOutput(timeout: 60) { $0.contains("\"started\"") })
        watcher.signal(SIGKILL)
        _ = watcher.wait(timeout: 10)
        #expect(submit.wait(timeout: 300) == 0, "\(submit.stderr)")
        #expect(JobEvents.finished(submit.stdout)?["state"] as? String == "completed")
    }
}
