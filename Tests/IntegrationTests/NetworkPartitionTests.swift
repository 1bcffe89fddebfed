import Foundation
import Glibc
import SqueezeProtocol
import Testing

/// A real network cut: the coordinator and two workers run in network namespaces of their own
/// on one bridge (NetworkNamespaces), and the link of the worker that writes pieces into the
/// job's workspace (shared storage) goes down mid-job. The namespaces share the file system.
@Suite("network partition between namespaces", .serialized)
struct NetworkPartitionTests {
    /// Heartbeat period given to the coordinator (and, through its welcome, to the workers).
    private static let heartbeat = 0.5

    /// What the job compresses, and so what the cut-off worker holds.
    enum Holding: String, CustomTestStringConvertible, CaseIterable {
        /// Big files in blocks and a folder of small ones: blocks, pieces and batches.
        case mixed
        /// Small files only, so every item is a batch; the worker sleeps a second in each, so
        /// the cut finds it holding batches.
        case batches

        var testDescription: String { rawValue }

        /// Writes the job's tree under `src`.
        func write(_ tree: TestTree) throws {
            var data = TestData(seed: 23)
            switch self {
            case .mixed:
                try TestCorpus.make(at: tree.path("data/src/big"), files: 12, bytesPerFile: 6 << 20)
                for index in 0..<300 { try tree.write("data/src/small/d\(index % 12)/f\(index).txt", data.text(300 + index * 61)) }
            case .batches:
                for index in 0..<1_500 { try tree.write("data/src/small/d\(index % 30)/f\(index).txt", data.text(300 + index % 97 * 61)) }
            }
        }

        /// The shared-storage worker's extra arguments.
        var sharedWorkerArguments: [String] { self == .batches ? ["--test-item-delay", "1s"] : [] }
    }

    @Test(
        "a shared-storage worker cut off mid-job is declared dead; the remote worker finishes with embedded mode's bytes; once it is back, no output changes and nothing is left",
        .enabled(if: NetworkNamespaces.unavailable == nil, "needs root and iproute2's ip (ip netns)"), arguments: Holding.allCases)
    func sharedWorkerCutOff(holding: Holding) throws {
        let tree = try TestTree()
        try holding.write(tree)
        let options = ["--level", "9", "--block-size", "512K", "--json"]
        let reference = try SqueezeBinary.run(["compress", tree.path("data/src"), "-o", tree.path("data/reference")] + options, timeout: 300)
        try #require(reference.status == 0, "\(reference.stderr)")

        let network = try NetworkNamespaces(hosts: ["coordinator", "shared", "remote"])
        var processes: [BackgroundProcess] = []
        defer {
            for process in processes { process.signal(SIGKILL) }
            for process in processes { process.wait(timeout: 10) }
            network.remove()
        }
        /// Starts squeeze on `host`; the cleanup above kills it.
        func start(_ name: String, on host: String, _ arguments: [String]) throws -> BackgroundProcess {
            let command = network.command(on: host, SqueezeBinary.url, arguments)
            let process = try BackgroundProcess(name, executable: command.executable, arguments: command.arguments, in: tree.root)
            processes.append(process)
            return process
        }
        let clients = "tcp://\(network.address("coordinator")):5555"
        let workers = "tcp://\(network.address("coordinator")):5556"
        /// `squeeze status --json`, asked from the coordinator's namespace.
        func status() -> ClusterStatus? {
            let command = network.command(on: "coordinator", SqueezeBinary.url, ["status", "--coordinator", clients, "--json"])
            guard let outcome = try? ProcessRunner.run(command.executable, command.arguments, timeout: 30), outcome.status == 0 else { return nil }
            return try? JSONDecoder().decode(ClusterStatus.self, from: Data(outcome.stdout.utf8))
        }
        func worker(_ id: String) -> WorkerStatus? { status()?.workers.first { $0.workerID == id } }

        let coordinator = try start("coordinator", on: "coordinator", [
            "coordinator", "--listen", clients, "--workers-listen", workers, "--root", tree.path("data"), "--state", tree.path("state"),
            "--heartbeat", "\(Int(Self.heartbeat * 1000))ms",
            // The bridge's addresses are beyond loopback; this test is about links, not keys.
            "--insecure",
        ])
        try #require(coordinator.waitForOutput(timeout: 20) { $0.contains("listening") }, "\(coordinator.stderr)")
        let shared = try start("shared", on: "shared", ["worker", "--coordinator", workers, "--id", "shared", "--slots", "2", "--storage", "shared"] + holding.sharedWorkerArguments)
        _ = try start("remote", on: "remote", ["worker", "--coordinator", workers, "--id", "remote", "--slots", "2", "--storage", "remote"])
        let registered = Poll.until(timeout: 20, every: 0.2) {
            status()?.workers.map { "\($0.workerID) \($0.storage ?? "-")" }.sorted() == ["remote remote", "shared shared"]
        }
        try #require(registered, "workers did not register: \(coordinator.stderr)")
        // `ip netns exec` execs squeeze (no fork), so these pids, which the cleanup kills, are squeeze's.
        for process in processes {
            let image = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/exe")
            #expect(image == SqueezeBinary.url.resolvingSymlinksInPath().path, "\(process.name) runs \(image)")
        }

        // Cut the shared worker off once a fifth of the job is done and it holds items.
        let submitted = Date()
        let submit = try start("submit", on: "coordinator", ["submit", "--coordinator", clients, "src", "-o", "out"] + options)
        let working = Poll.until(timeout: 60, every: 0.1) {
            guard JobEvents.progress(submit.stdout) >= 0.2, let worker = worker("shared") else { return false }
            return (worker.itemsDone > 0 || holding == .batches) && worker.busy > 0
        }
        try #require(working, "the shared worker never took work: \(coordinator.stderr)")
        try #require(submit.isRunning, "the job ended before the cut")
        let progressAtCut = JobEvents.progress(submit.stdout)
        try network.cut("shared")
        let cut = Date()

        let dead = Poll.until(timeout: 20, every: 0.2) { status()?.workers.map(\.workerID) == ["remote"] }
        #expect(dead, "the cut-off worker was not declared dead: \(coordinator.stderr)")
        let declaredDead = Date()
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)\n\(coordinator.stderr)")
        let finished = Date()
        #expect(JobEvents.finished(submit.stdout)?["state"] as? String == "completed", "\(submit.stdout)")
        #expect(coordinator.stderr.contains("worker=shared [SqueezeCoordinator] worker silent; declared dead"), "\(coordinator.stderr)")
        #expect(coordinator.stderr.contains("worker=shared [SqueezeCoordinator] requeued items"), "\(coordinator.stderr)")
        if holding == .batches {
            // The batches it held went to the remote worker, which takes them file by file.
            let batches = status()
            #expect((batches?.batchesExpanded ?? 0) >= 1, "no batch was taken over: \(String(describing: batches))")
        }
        let destination = tree.path("data/out")
        try Self.expectSame(tree.path("data/reference"), destination, "after the job")
        #expect(TreeCheck.temporaries(under: destination).isEmpty, "after the job: \(TreeCheck.temporaries(under: destination))")
        let outputs = try TreeCheck.fingerprints(destination)

        // The link comes back: the worker registers again, and whatever it did while cut off
        // must not reach an output or leave a file behind.
        try network.reconnect("shared")
        let reconnected = Date()
        var back: Date?
        let settled = Poll.until(timeout: 60, every: 0.2) {
            guard let worker = worker("shared") else { return false }
            if back == nil { back = Date() }
            // Registered for a few heartbeat periods, and heard within the last one.
            return Date().timeIntervalSince(back ?? Date()) >= 4 * Self.heartbeat && worker.lastHeartbeatSeconds <= Self.heartbeat
        }
        #expect(settled, "the shared worker did not come back: \(shared.stderr)\n\(coordinator.stderr)")
        #expect(try TreeCheck.fingerprints(destination) == outputs, "an output was written again")
        try Self.expectSame(tree.path("data/reference"), destination, "after the worker came back")
        #expect(TreeCheck.temporaries(under: destination).isEmpty, "after the worker came back: \(TreeCheck.temporaries(under: destination))")
        let lateResults = status()?.lateResults

        for process in processes { process.signal(SIGKILL) }
        for process in processes { process.wait(timeout: 10) }
        network.remove()
        let leftovers = try network.leftovers()
        #expect(leftovers.isEmpty, "namespaces left: \(leftovers)")
        func seconds(_ from: Date, _ to: Date?) -> String { to.map { String(format: "%.1f s", $0.timeIntervalSince(from)) } ?? "-" }
        print("""
            network partition (\(holding)): \(outputs.count) outputs in \(seconds(submitted, finished)); link cut at \
            \(Int(progressAtCut * 100))% (\(seconds(submitted, cut))), worker declared dead \(seconds(cut, declaredDead)) \
            later; back \(seconds(reconnected, back)) after the link; late results dropped: \(lateResults.map(String.init) ?? "-")
            """)
    }

    /// Expects `output` to hold exactly the files of `reference`, byte for byte.
    private static func expectSame(_ reference: String, _ output: String, _ when: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", reference, output])
        #expect(same.status == 0, "\(when): the output differs from embedded mode: \(same.stdout) \(same.stderr)", sourceLocation: sourceLocation)
    }
}
