import Foundation
import Glibc
import Testing

/// A worker the coordinator took for dead comes back still holding its items: it finishes them
/// instead of having them compressed again.
@Suite("a worker declared dead and back", .serialized)
struct ReturningWorkerTests {
    @Test("stopped past its liveness with no other worker to take its items, it resumes them: kept, none compressed twice, every output right")
    func keepsItsItems() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 12, bytesPerFile: 1 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--heartbeat", "200ms"])
        // Each item waits 1 s before it is compressed: the worker holds several when it is stopped.
        let worker = try cluster.addWorker(slots: 2, id: "returning", arguments: ["--test-item-delay", "1s"])
        try #require(cluster.waitForWorkers(1))
        let submit = try cluster.submit("submit", ["src", "--json"])
        let holding = Poll.until(timeout: 20, every: 0.05) { (try? cluster.status().workers.first?.busy ?? 0) ?? 0 >= 1 }
        try #require(holding, "the worker never got an item")
        worker.signal(SIGSTOP)
        #expect(cluster.waitForWorkers(0, timeout: 30), "the stopped worker was not declared dead")
        worker.signal(SIGCONT)
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 12)
        #expect(cluster.coordinator.stderr.contains("worker kept the items it still held"), "\(cluster.coordinator.stderr)")
        let status = try cluster.status()
        // Nothing it held was compressed again, by it or anyone: no answer came twice.
        #expect(status.lateResults == 0, "late \(status.lateResults)")
        #expect(status.malformedMessages == 0)
    }
}
