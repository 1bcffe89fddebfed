import Foundation
import Glibc
import SqueezeProtocol
import Testing

/// The result check with the real binary: a worker written in Python from docs/protocol.md
/// that answers every item wrongly (a wrong CRC, garbage, truncated deflate) works beside a
/// real worker. Nothing it sends reaches an output, and it ends quarantined.
@Suite("results are checked, not trusted", .serialized)
struct ResultCheckTests {
    /// The hostile worker's script, in Tests/Peers.
    static let badWorker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Peers/bad_worker.py").path

    @Test("a worker answering wrongly: every output is correct and the worker ends quarantined",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func wrongAnswersAreRefused() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 12, bytesPerFile: 3 << 20)
        // Items of 1 MiB, so the job has enough of them for the hostile worker to get several.
        // A key each: on one host without keys they would be one principal, and the real
        // worker could not check the hostile one.
        let keys = try CurveKeys.principals(["bad-worker", "good-worker"], in: tree)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--item-size", "1M", "--block-size", "256K"],
                                      clientArguments: keys.clientArguments("client"))
        // It registers first, with more slots, so it is offered work before the real worker exists.
        let bad = try cluster.startHostileWorker(python: python, id: "bad-worker", slots: 4, in: tree.root,
                                                 environment: keys.hostileEnvironment("bad-worker"))
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(bad.stderr)")
        try cluster.addWorker(slots: 1, id: "good-worker", arguments: ["--storage", "remote"] + keys.clientArguments("good-worker"))
        try #require(cluster.waitForWorkers(2))

        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("completed: 12 files"), "\(outcome.stdout)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 12)
        #expect(bad.stdout.contains("answered 3"), "the hostile worker was given too few items: \(bad.stdout)")

        let status = try cluster.status()
        let hostile = try #require(status.workers.first { $0.workerID == "bad-worker" })
        #expect(hostile.quarantined == true, "\(status.workers)")
        #expect((hostile.refusedResults ?? 0) >= 3)
        #expect(status.workers.first { $0.workerID == "good-worker" }?.quarantined == nil)
        #expect((status.refusedResults ?? 0) >= 3)
        // Its answers that needed decoding (garbage, truncated; a wrong CRC is refused on sight)
        // were checked by the real worker, not the coordinator.
        #expect((status.checksByWorkers ?? 0) >= 2, "\(status)")
        let log = cluster.coordinator.stderr
        #expect(log.components(separatedBy: "worker quarantined").count == 2, "quarantine logged once: \(log)")
        #expect(log.components(separatedBy: "result refused:").count == 2, "first refusal logged once: \(log)")
        #expect(cluster.coordinator.isRunning)
    }

    @Test("shared storage: the hostile worker's neighbour writes pieces itself, and they are checked too",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func sharedStorageBesideAHostileWorker() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 8, bytesPerFile: 2 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: ["--item-size", "1M", "--block-size", "256K"])
        let bad = try cluster.startHostileWorker(python: python, id: "bad-worker", slots: 4, in: tree.root)
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(bad.stderr)")
        try cluster.addWorker(slots: 1, id: "shared-worker", arguments: ["--storage", "shared"])
        try #require(cluster.waitForWorkers(2))
        // Level 1 (ISA-L, with dictionaries) and level 0 (blocks written in place) as well.
        for (level, name) in [("1", "out1"), ("0", "out0")] {
            let outcome = try cluster.submitAndWait(["src", "-o", name, "--level", level])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/\(name)")) == 8)
        }
        #expect(try cluster.status().workers.first { $0.workerID == "bad-worker" }?.quarantined == true)
        #expect(cluster.coordinator.isRunning)
    }

    @Test("with CURVE the quarantine follows the key: the same key under a new worker id is quarantined on arrival",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func quarantineFollowsTheKey() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 8, bytesPerFile: 2 << 20)
        let keys = try CurveKeys(in: tree)
        for name in ["coordinator", "worker", "client", "bad"] { _ = try keys.make(name) }
        for name in ["worker", "client", "bad"] { try keys.authorize(name) }
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 0,
            coordinatorArguments: keys.coordinatorArguments + ["--item-size", "1M", "--block-size", "256K"],
            workerArguments: keys.clientArguments("worker"), clientArguments: keys.clientArguments("client"))
        let curve = ["CURVE_SECRET": keys.secret("bad"), "CURVE_SERVER": keys.publicCertificate("coordinator")]
        let first = try cluster.startHostileWorker(python: python, id: "bad-1", slots: 4, in: tree.root, environment: curve)
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(first.stderr)")
        try cluster.addWorker(slots: 1, id: "good-worker", arguments: ["--storage", "remote"] + keys.clientArguments("worker"))
        try #require(cluster.waitForWorkers(2))
        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 8)
        #expect(try cluster.status().workers.first { $0.workerID == "bad-1" }?.quarantined == true)

        // The same key under another id: quarantined as it registers, before any answer.
        let second = try cluster.startHostileWorker(python: python, id: "bad-2", slots: 4, in: tree.root, environment: curve)
        try #require(cluster.waitForWorkers(3), "the second Python worker did not register: \(second.stderr)")
        let status = try cluster.status()
        #expect(status.workers.first { $0.workerID == "bad-2" }?.quarantined == true, "\(status.workers)")
        #expect(status.workers.first { $0.workerID == "good-worker" }?.quarantined == nil)
        let again = try cluster.submitAndWait(["src", "-o", "again", "--level", "6"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!second.stdout.contains("answered"), "the quarantined key was given work: \(second.stdout)")
    }

    @Test("a shared-storage worker saying it cannot read its sources: the item goes once to another worker before its files fail",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func failedReadsAreRetriedElsewhere() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 8, bytesPerFile: 1 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: ["--item-size", "1M", "--block-size", "256K"])
        let failing = try cluster.startHostileWorker(python: python, id: "failing", slots: 4, mode: "fail-reads", in: tree.root)
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(failing.stderr)")
        try cluster.addWorker(slots: 1, id: "shared-worker", arguments: ["--storage", "shared"])
        try #require(cluster.waitForWorkers(2))
        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("completed: 8 files"), "\(outcome.stdout)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 8)
        #expect(failing.stdout.contains("failed 1"), "the failing worker was given no item: \(failing.stdout)")
    }

    @Test("a worker stitching wrongly: each corrupt segment is caught by another worker's reading, the file is joined by the coordinator, and the stitcher ends quarantined",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func wrongStitchesAreRefused() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        // Six files of eight blocks each: every one is stitched, in several 64 KiB segments.
        try TestCorpus.make(at: tree.path("data/src"), files: 6, bytesPerFile: 2 << 20)
        let (cluster, bad) = try TestCluster.withHostileStitcher(
            python: python, mode: "stitch-bad", in: tree, coordinatorArguments: ["--item-size", "1M", "--block-size", "256K"])

        let outcome = try cluster.submitAndWait(["src", "--level", "6", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 6)
        #expect(bad.stdout.contains("stitched 3"), "the hostile worker was given too few segments: \(bad.stdout)")
        let summary = try #require(JobEvents.finished(outcome.stdout))
        #expect(summary["state"] as? String == "completed")
        #expect((summary["filesJoinedByCoordinator"] as? Int ?? 0) >= 3, "\(summary)")
        #expect(TreeCheck.temporaries(under: tree.path("data/src.squeezed")).isEmpty)

        let status = try cluster.status()
        #expect(status.workers.first { $0.workerID == "bad-stitcher" }?.quarantined == true, "\(status.workers), stitcher: \(bad.stderr)")
        #expect(status.workers.first { $0.workerID == "shared-worker" }?.quarantined == nil)
        #expect((status.refusedStitches ?? 0) >= 3, "\(status)")
        #expect((status.stitchChecksByWorkers ?? 0) >= 3, "\(status)")
        let log = cluster.coordinator.stderr
        #expect(log.components(separatedBy: "stitch refused:").count == 2, "first refusal logged once: \(log)")
        // The real worker read the segments and said they were wrong; the coordinator agreed,
        // so the verifier got no strike.
        #expect(!log.contains("verdict refused"), "\(log)")
        #expect(cluster.coordinator.isRunning)
    }
}
