import Foundation
import Testing

extension TestCluster {
    /// Starts Tests/Peers/bad_worker.py (a worker written from docs/protocol.md that misbehaves
    /// on purpose) against this cluster's worker endpoint: `id` with `slots` slots, in `mode`
    /// (see the script; nil answers every item wrongly). The caller keeps the process; it is
    /// stopped when released.
    func startHostileWorker(
        python: String, id: String, slots: Int, mode: String? = nil, in folder: URL, environment: [String: String] = [:]
    ) throws -> BackgroundProcess {
        try BackgroundProcess(
            id, executable: URL(fileURLWithPath: python),
            arguments: [ResultCheckTests.badWorker, workerEndpoint, id, "\(slots)"] + (mode.map { [$0] } ?? []),
            in: folder, environment: environment)
    }

    /// A cluster of two principals' workers for a stitch test: bad_worker.py in stitching
    /// `mode` as `bad-stitcher` (no engine, so it gets no item and is always the least busy
    /// shared worker, the one every stitch goes to until it is quarantined) and a real
    /// shared-storage worker, `shared-worker`, which checks its segments; 64 KiB stitch segments
    /// and `coordinatorArguments` besides. Returns the cluster and the Python worker.
    static func withHostileStitcher(
        python: String, mode: String, in tree: TestTree, coordinatorArguments: [String] = []
    ) throws -> (cluster: TestCluster, stitcher: BackgroundProcess) {
        let keys = try CurveKeys.principals(["bad-stitcher", "shared-worker"], in: tree)
        // Whole files up to 1 MiB only: the tests' files of a few MiB are cut and stitched, not
        // compressed whole in a batch.
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + coordinatorArguments + ["--stitch-segment", "64K", "--whole-file-size", "1M"],
                                      clientArguments: keys.clientArguments("client"))
        let bad = try cluster.startHostileWorker(python: python, id: "bad-stitcher", slots: 1, mode: mode, in: tree.root,
                                                 environment: keys.hostileEnvironment("bad-stitcher"))
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(bad.stderr)")
        try cluster.addWorker(slots: 1, id: "shared-worker", arguments: ["--storage", "shared"] + keys.clientArguments("shared-worker"))
        try #require(cluster.waitForWorkers(2))
        return (cluster, bad)
    }
}
