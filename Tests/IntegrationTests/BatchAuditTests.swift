import Foundation
import Testing

/// Audits of batches with the real binary: with three principals, every audit of a batch
/// (whole files of several blocks included) is one more `verifyBatch` to the third, not a
/// file-by-file expansion and not a check by the coordinator.
@Suite("batch audits", .serialized)
struct BatchAuditTests {
    @Test("three principals, every good verdict audited: the audits go to workers as batches, none is expanded or done by the coordinator, and the outputs are embedded mode's")
    func auditsByAThirdPrincipal() throws {
        let tree = try TestTree()
        // Eight folders, each with two files of two and three blocks of 256 KiB (whole in their
        // scan's batch), a nested folder and small files.
        var data = TestData(seed: 77)
        for folder in 0..<8 {
            for file in 0..<2 { try tree.write("src/f\(folder)/w\(file).txt", data.text(300_000 + 300_000 * file + 1_000 * folder)) }
            for file in 0..<5 { try tree.write("src/f\(folder)/deep/s\(file).txt", data.text(500 + 700 * file)) }
        }
        let options = ["--block-size", "256K", "--level", "6"]
        let reference = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("reference")] + options)
        #expect(reference.status == 0, "\(reference.stderr)")
        let keys = try CurveKeys.principals(["w1", "w2", "w3"], in: tree)
        let cluster = try TestCluster(root: tree.root.path, logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--test-audit-interval", "1"],
                                      clientArguments: keys.clientArguments("client"))
        for id in ["w1", "w2", "w3"] {
            try cluster.addWorker(slots: 2, id: id, arguments: ["--storage", "shared"] + keys.clientArguments(id))
        }
        try #require(cluster.waitForWorkers(3))

        let outcome = try cluster.submitAndWait(["src", "-o", "out"] + options)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", tree.path("reference"), tree.path("out")])
        #expect(same.status == 0, "the cluster's outputs differ from embedded mode's: \(same.stdout)")
        #expect(TreeCheck.temporaries(under: tree.path("out")).isEmpty)
        let status = try cluster.status()
        #expect((status.batchesPublished ?? 0) >= 8, "\(status)")
        #expect((status.auditsByWorkers ?? 0) >= status.batchesPublished ?? 0, "every batch's good verdict is audited by a worker: \(status)")
        #expect(status.auditsByCoordinator == 0, "\(status)")
        #expect(status.batchesExpanded == 0, "no audit expands its batch: \(status)")
        #expect(status.collusionsCaught == 0 && status.workers.allSatisfy { $0.quarantined == nil }, "\(status.workers)")
    }

    @Test("--test-audit-interval out of range is refused", arguments: ["0", "1000001"])
    func intervalOutOfRange(interval: String) throws {
        let run = try SqueezeBinary.run(["coordinator", "--test-audit-interval", interval, "--no-state"], timeout: 20)
        #expect(run.status != 0)
        #expect(run.stderr.contains("--test-audit-interval must be 1-1000000"), "\(run.stderr)")
    }
}
