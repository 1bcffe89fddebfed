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
        // Nothing it held was compressed again, by it or anyone: no answer came twice. An answer
        // it finished while stopped may reach the coordinator before it announces itself again
        // (a slow machine, Thread Sanitizer): that one is dropped, from a peer that is not a
        // registered worker, and sent again with the items it kept. Those are the only late ones.
        let droppedBeforeJoining = Self.counts(in: cluster.coordinator.stderr, of: "dropped an answer from a peer that is not a registered worker")
        #expect(status.lateResults == droppedBeforeJoining, "late \(status.lateResults): \(cluster.coordinator.stderr) worker: \(worker.stderr)")
        #expect(status.malformedMessages == 0)
    }

    /// The sum of the `count=` fields of the log lines that say `message`.
    private static func counts(in log: String, of message: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(message) }.reduce(0) { sum, line in
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("count=") }) else { return sum + 1 }
            return sum + (Int(field.dropFirst("count=".count)) ?? 1)
        }
    }
}
