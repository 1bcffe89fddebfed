import Foundation
import Glibc
import Testing

/// A shared-storage worker renames its accepted outputs into place itself, on the
/// coordinator's grant. One stopped while it holds a grant has the grant finished by the
/// coordinator's writer with the same attempt, and nothing it does once it wakes reaches an
/// output.
@Suite("a worker holding a publish grant", .serialized)
struct PublishGrantTests {
    @Test("stopped holding a grant: a writer publishes that attempt, the job completes, and the worker's late renames change nothing")
    func stoppedHoldingAGrant() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 300, bytesPerFile: 16 << 10)
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--heartbeat", "200ms", "--http", "127.0.0.1:0"])
        let base = try #require(HTTPProbe.base(of: cluster.coordinator), "no http line: \(cluster.coordinator.stdout)")
        // Each of its items waits 300 ms and each publish 3 s before its renames: it is caught
        // holding a grant, with items left for another worker.
        let holder = try cluster.addWorker(slots: 1, id: "holder", arguments: ["--storage", "shared", "--test-publish-delay", "3s", "--test-item-delay", "300ms"])
        try #require(cluster.waitForWorkers(1))
        let submit = try cluster.submit("submit", ["src", "--json"])
        try #require(Poll.until(timeout: 60) { holder.stderr.contains("delaying a publish") }, "\(holder.stderr)")
        holder.signal(SIGSTOP)
        #expect(cluster.waitForWorkers(0, timeout: 30), "the stopped worker was not declared dead")
        try cluster.addWorker(slots: 2, id: "rescuer", arguments: ["--storage", "shared"])
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)")
        let metrics = try HTTPProbe.metrics(base + "metrics")
        #expect((metrics["squeeze_publish_grants_taken_over_total"] ?? 0) >= 1, "\(metrics)")
        #expect((metrics["squeeze_outputs_published_by_workers_total"] ?? 0) >= 1, "the rescuer publishes its own")
        #expect(metrics["squeeze_relayed_bytes_total"] == 0)
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 300)
        let before = try TreeCheck.fingerprints(tree.path("data/src.squeezed"))

        // It wakes, renames what it still can, registers again: the outputs are as they were.
        holder.signal(SIGCONT)
        #expect(cluster.waitForWorkers(2, timeout: 30), "the woken worker did not register again")
        // Its delayed publish runs once it wakes, and finds nothing left to rename.
        #expect(Poll.until(timeout: 30) { holder.stderr.contains("could not publish some outputs") }, "\(holder.stderr)")
        #expect(try TreeCheck.fingerprints(tree.path("data/src.squeezed")) == before)
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 300)
        #expect(TreeCheck.temporaries(under: tree.path("data")).isEmpty)
    }
}
