import Foundation
import Testing

/// Listing checks with the real binary: each listing a shared-storage worker sends is listed
/// again by a worker of another principal. A scanner that leaves files out cannot make the job
/// lose them, and a checker that lies about every listing cannot make the job lose or repeat
/// one: the coordinator lists the claimed ranges itself, and the outputs are embedded mode's.
@Suite("listing checks", .serialized)
struct ListingCheckTests {
    @Test("a checker that calls every listing different: the coordinator lists the ranges, and the outputs are embedded mode's",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func lyingChecker() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try VariedTree.make(tree)
        let options = ["--block-size", "256K", "--level", "6"]
        let reference = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("reference")] + options)
        #expect(FileManager.default.fileExists(atPath: tree.path("reference/mixed/big.txt.gz")), "\(reference.stderr)")
        let keys = try CurveKeys.principals(["liar", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.root.path, logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--http", "127.0.0.1:0"],
                                      clientArguments: keys.clientArguments("client"))
        let liar = try cluster.startHostileWorker(python: python, id: "liar", slots: 1, mode: "listing-liar", in: tree.root,
                                                  environment: keys.hostileEnvironment("liar"))
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(liar.stderr)")
        try cluster.addWorker(slots: 2, id: "honest", arguments: ["--storage", "shared"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(2))

        let outcome = try cluster.submitAndWait(["src", "-o", "out"] + options)
        let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", tree.path("reference"), tree.path("out")])
        #expect(same.status == 0, "the cluster's outputs differ from embedded mode's: \(same.stdout)")
        #expect(outcome.status == reference.status, "\(outcome.stderr)")
        #expect(TreeCheck.temporaries(under: tree.path("out")).isEmpty)
        #expect(liar.stdout.contains("lied 2"), "the liar was asked too few checks: \(liar.stdout)")
        let base = try #require(HTTPProbe.base(of: cluster.coordinator), "no http line: \(cluster.coordinator.stdout)")
        let metrics = try HTTPProbe.metrics(base + "metrics")
        #expect((metrics["squeeze_scans_total{by=\"worker\"}"] ?? 0) >= 2, "\(metrics)")
        #expect((metrics["squeeze_listing_differences_total"] ?? 0) >= 2, "\(metrics)")
        #expect(metrics["squeeze_listing_left_out_total"] == 0, "the honest scanner left nothing out: \(metrics)")
        #expect(try cluster.status().malformedMessages == 0)
        #expect(cluster.coordinator.isRunning)
    }

    @Test("a scanner that leaves a file out of every folder it lists: the other principal's check differs, and the coordinator finds and compresses them")
    func scannerLeavingFilesOut() throws {
        let tree = try TestTree()
        var data = TestData(seed: 41)
        // Forty folders, two levels deep, each with a file the lying scanner leaves out.
        for folder in 0..<40 {
            let path = "src/f\(folder / 10)/g\(folder)"
            for file in 0..<5 { try tree.write("\(path)/keep-\(file).txt", data.text(3000 + 100 * file)) }
            try tree.write("\(path)/omitted.txt", data.text(2000))
        }
        try tree.write("src/top.txt", data.text(500))
        let options = ["--level", "6"]
        let reference = try SqueezeBinary.run(["compress", tree.path("src"), "-o", tree.path("reference")] + options)
        #expect(reference.status == 0, "\(reference.stderr)")
        let keys = try CurveKeys.principals(["liar", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.root.path, logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--http", "127.0.0.1:0"],
                                      clientArguments: keys.clientArguments("client"))
        try cluster.addWorker(slots: 2, id: "liar", arguments: ["--storage", "shared", "--test-scan-omit", "omitted.txt"] + keys.clientArguments("liar"))
        try cluster.addWorker(slots: 2, id: "honest", arguments: ["--storage", "shared"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(2))

        let outcome = try cluster.submitAndWait(["src", "-o", "out"] + options)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", tree.path("reference"), tree.path("out")])
        #expect(same.status == 0, "the cluster's outputs differ from embedded mode's: \(same.stdout)")
        #expect(TreeCheck.temporaries(under: tree.path("out")).isEmpty)
        let base = try #require(HTTPProbe.base(of: cluster.coordinator), "no http line: \(cluster.coordinator.stdout)")
        let metrics = try HTTPProbe.metrics(base + "metrics")
        let workers = try cluster.status().workers
        // The liar scanned some folders (it took items), and what it left out was found.
        #expect(workers.first { $0.workerID == "liar" }.map { $0.itemsDone > 0 } == true, "\(workers)")
        #expect((metrics["squeeze_listing_differences_total"] ?? 0) >= 1, "\(metrics)")
        #expect((metrics["squeeze_listing_left_out_total"] ?? 0) >= 1, "\(metrics)")
        #expect(cluster.coordinator.isRunning)
    }
}
