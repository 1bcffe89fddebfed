import Foundation
import Testing

/// Whole files in batches with the real binary: a scanning worker compresses files of a few
/// blocks whole, and another principal checks each member's offset table as well as its data,
/// so a member every gzip tool reads but whose table misleads is never published.
@Suite("whole files in batches", .serialized)
struct WholeFileTests {
    @Test("a worker whose whole members carry a lying offset table: the other principal's check refuses them, the outputs are embedded mode's, and the liar is struck")
    func lyingTables() throws {
        let tree = try TestTree()
        // Twelve folders, each with three files of two to four blocks of 256 KiB (whole in
        // their scan's batch) and a one-block file.
        var data = TestData(seed: 51)
        for folder in 0..<12 {
            for file in 0..<3 { try tree.write("src/f\(folder)/w\(file).txt", data.text(300_000 + 250_000 * file + 10_000 * folder)) }
            try tree.write("src/f\(folder)/small.txt", data.text(2000))
        }
        let options = ["--block-size", "256K", "--level", "6"]
        let reference = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("reference")] + options)
        #expect(reference.status == 0, "\(reference.stderr)")
        let keys = try CurveKeys.principals(["liar", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.root.path, logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--http", "127.0.0.1:0"],
                                      clientArguments: keys.clientArguments("client"))
        try cluster.addWorker(slots: 2, id: "liar", arguments: ["--storage", "shared", "--test-whole-table-lie"] + keys.clientArguments("liar"))
        try cluster.addWorker(slots: 2, id: "honest", arguments: ["--storage", "shared"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(2))

        let outcome = try cluster.submitAndWait(["src", "-o", "out"] + options)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // A lying table changes the header's bytes: any published one would differ here.
        let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", tree.path("reference"), tree.path("out")])
        #expect(same.status == 0, "the cluster's outputs differ from embedded mode's: \(same.stdout)")
        #expect(TreeCheck.temporaries(under: tree.path("out")).isEmpty)
        let status = try cluster.status()
        let liar = try #require(status.workers.first { $0.workerID == "liar" }, "\(status.workers)")
        let honest = try #require(status.workers.first { $0.workerID == "honest" }, "\(status.workers)")
        #expect((liar.refusedResults ?? 0) >= 1, "the liar's members were not refused: \(status)")
        #expect(honest.refusedResults == 0 && honest.quarantined == nil, "\(status.workers)")
        #expect((status.batchesPublished ?? 0) >= 1, "\(status)")
        let base = try #require(HTTPProbe.base(of: cluster.coordinator), "no http line: \(cluster.coordinator.stdout)")
        let metrics = try HTTPProbe.metrics(base + "metrics")
        #expect((metrics["squeeze_scans_total{by=\"worker\"}"] ?? 0) >= 2, "\(metrics)")
        #expect(cluster.coordinator.isRunning)
    }

    @Test("--whole-file-size past 64M or under 4K is refused, naming the range", arguments: ["65M", "1K"])
    func limitOutOfRange(size: String) throws {
        let run = try SqueezeBinary.run(["coordinator", "--whole-file-size", size, "--no-state"], timeout: 20)
        #expect(run.status != 0)
        #expect(run.stderr.contains("--whole-file-size must be between 4K and 64M"), "\(run.stderr)")
    }
}
