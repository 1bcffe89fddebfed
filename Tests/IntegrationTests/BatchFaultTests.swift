import Foundation
import Glibc
import Testing

/// A shared-storage job's small files travel as scan items and batches: a scan item names a
/// folder, which the worker lists and whose files it compresses as one batch; it later renames
/// them all. A worker lost while it holds one (killed, or stopped past its liveness and back
/// later) has it redone elsewhere, and nothing it does afterwards reaches an output. The tree
/// is 60 folders of 10 files: the coordinator lists the first to start, the other 59 go as
/// scan items, which go before any other item, so what the holder holds first is scan items.
@Suite("a worker holding a scan item or a batch", .serialized)
struct BatchFaultTests {
    /// 600 files of 4 KiB: several batches, none of them a block.
    private static let files = 600

    /// Starts a cluster whose only worker ("holder") waits `delay` before each item, submits the
    /// tree and returns once the holder holds items (its window of several; the first is asleep),
    /// every one of them a batch.
    private static func holding(
        _ tree: TestTree, delay: String
    ) throws -> (cluster: TestCluster, holder: BackgroundProcess, submit: BackgroundProcess, base: String) {
        try TestCorpus.make(at: tree.path("data/src"), files: files, bytesPerFile: 4 << 10)
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--heartbeat", "200ms", "--http", "127.0.0.1:0"])
        let base = try #require(HTTPProbe.base(of: cluster.coordinator), "no http line: \(cluster.coordinator.stdout)")
        let holder = try cluster.addWorker(slots: 1, id: "holder", arguments: ["--storage", "shared", "--test-item-delay", delay])
        try #require(cluster.waitForWorkers(1))
        let submit = try cluster.submit("submit", ["src", "--json"])
        try #require(Poll.until(timeout: 60) { ((try? cluster.status().workers.first?.busy) ?? 0) >= 1 }, "the holder never got an item")
        let sent = try HTTPProbe.metrics(base + "metrics")
        try #require((sent["squeeze_scans_total{by=\"worker\"}"] ?? 0) >= 1, "the holder holds no scan item: \(sent)")
        return (cluster, holder, submit, base)
    }

    @Test("killed holding scan items: another worker lists, compresses and publishes them, every output right, no temporary left")
    func killedHoldingABatch() throws {
        let tree = try TestTree()
        let (cluster, holder, submit, base) = try Self.holding(tree, delay: "30s")
        holder.signal(SIGKILL)
        try cluster.addWorker(slots: 2, id: "rescuer", arguments: ["--storage", "shared"])
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)")
        #expect(JobEvents.finished(submit.stdout)?["state"] as? String == "completed")
        #expect(cluster.coordinator.stderr.contains("requeued items"), "\(cluster.coordinator.stderr)")
        let metrics = try HTTPProbe.metrics(base + "metrics")
        #expect((metrics["squeeze_batches_published_total"] ?? 0) >= 1, "the rescuer's batches: \(metrics)")
        // The holder's items (scans, which go first) were requeued and sent again.
        #expect((metrics["squeeze_items_requeued_total"] ?? 0) >= 1, "\(metrics)")
        #expect((metrics["squeeze_scans_total{by=\"worker\"}"] ?? 0) > (metrics["squeeze_items_requeued_total"] ?? 0), "\(metrics)")
        #expect(metrics["squeeze_relayed_bytes_total"] == 0)
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == Self.files)
        #expect(TreeCheck.temporaries(under: tree.path("data")).isEmpty)
    }

    @Test("stopped holding scan items: declared dead, they are redone elsewhere; after SIGCONT what it does with them changes no output")
    func stoppedHoldingABatch() throws {
        let tree = try TestTree()
        // Long enough that it is still asleep in its item when it is stopped, short enough that
        // it answers soon after it wakes.
        let (cluster, holder, submit, base) = try Self.holding(tree, delay: "2s")
        holder.signal(SIGSTOP)
        #expect(cluster.waitForWorkers(0, timeout: 30), "the stopped worker was not declared dead")
        try cluster.addWorker(slots: 2, id: "rescuer", arguments: ["--storage", "shared"])
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)")
        let destination = tree.path("data/src.squeezed")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: destination) == Self.files)
        let before = try TreeCheck.fingerprints(destination)

        holder.signal(SIGCONT)
        #expect(cluster.waitForWorkers(2, timeout: 30), "the woken worker did not register again")
        // It finishes the stale batch it slept in (its answer is dropped as late, or held and
        // discarded once too old, depending on how long it was stopped); then it is idle.
        let idle = Poll.until(timeout: 30, every: 0.2) {
            (try? cluster.status().workers.first { $0.workerID == "holder" }?.busy) == 0
        }
        #expect(idle, "the woken worker never let go of its stale batch")
        #expect(try TreeCheck.fingerprints(destination) == before, "an output was written again")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: destination) == Self.files)
        let metrics = try HTTPProbe.metrics(base + "metrics")
        #expect((metrics["squeeze_batches_published_total"] ?? 0) >= 1, "\(metrics)")
        // Its pieces of the late batch are written under its attempt's fenced names and removed.
        #expect(Poll.until(timeout: 20) { TreeCheck.temporaries(under: tree.path("data")).isEmpty },
                "\(TreeCheck.temporaries(under: tree.path("data")))")
    }
}
