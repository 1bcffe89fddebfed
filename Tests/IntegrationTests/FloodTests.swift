import Foundation
import SqueezeProtocol
import Testing

/// A flood of jobs against the real binary (Tests/Peers/flood_client.py): past the admission
/// limits submits are refused with `tooMany`, the rest complete, and the worker never takes
/// the busy coordinator for a lost one.
@Suite("a flood of jobs", .serialized)
struct FloodTests {
    static let floodClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers/flood_client.py").path

    @Test("600 pipelined submits of a tiny folder: each accepted job completes, each other is refused tooMany, no worker reconnects",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func flood() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        for index in 0..<3 { try tree.write("data/tiny/f\(index)", Array("file \(index)\n".utf8)) }
        try FileManager.default.createDirectory(atPath: tree.path("data/out"), withIntermediateDirectories: true)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1, slots: 2,
                                      coordinatorArguments: ["--max-jobs", "40", "--max-jobs-per-client", "30"])
        try #require(cluster.waitForWorkers(1))
        let flood = try ProcessRunner.run(URL(fileURLWithPath: python), [
            Self.floodClient, cluster.clientEndpoint, tree.path("data/tiny"), tree.path("data/out"), "600", "64",
        ])
        #expect(flood.status == 0, "\(flood.stderr)")
        let line = flood.stdout
        let accepted = Int(line.components(separatedBy: "accepted ").last?.split(separator: " ").first ?? "") ?? -1
        let refused = Int(line.components(separatedBy: "refused ").last?.split(separator: " ").first ?? "") ?? -1
        #expect(accepted + refused == 600, "\(line)")
        #expect(accepted >= 30, "\(line)")
        #expect(refused > 0 && line.contains("tooMany:"), "\(line)")
        // Every accepted job completes, soon.
        let settled = try Poll.until(timeout: 60) { try cluster.status().jobs.allSatisfy { $0.state != .running } }
        #expect(settled, "jobs still running a minute after the flood")
        let status = try cluster.status()
        #expect(status.jobs.filter { $0.state == .completed }.count >= min(accepted, 100), "\(status.jobs.count) jobs kept")
        #expect(status.jobs.allSatisfy { $0.state == .completed })
        let outputs = try FileManager.default.contentsOfDirectory(atPath: tree.path("data/out"))
        #expect(outputs.count == accepted, "one output folder per accepted job")
        for worker in cluster.workers {
            #expect(!worker.stderr.contains("reconnecting"), "\(worker.stderr.suffix(2000))")
        }
        #expect(cluster.coordinator.isRunning)
    }
}
