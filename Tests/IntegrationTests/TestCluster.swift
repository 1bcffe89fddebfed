import Foundation
import SqueezeProtocol
import Testing

/// A coordinator and workers started from the real binary on free loopback ports. Every
/// process is killed when the cluster is dropped.
final class TestCluster {
    let folder: URL
    let root: String
    private(set) var coordinator: BackgroundProcess!
    private(set) var workers: [BackgroundProcess] = []
    private(set) var clientEndpoint = ""
    private(set) var workerEndpoint = ""
    private let coordinatorArguments: [String]
    /// The coordinator's journal folder, the same across its restarts; one per cluster, so
    /// clusters side by side in one test never share it.
    private let stateArguments: [String]
    /// Given to `status` and `submit` (CURVE keys, for one).
    private let clientArguments: [String]
    private var started = 0

    /// Starts a coordinator serving `root` and `workers` workers with `slots` slots each, and
    /// waits until all of them are registered. `workerArguments` go to those workers,
    /// `clientArguments` to every `status` and `submit`; `listen` are the coordinator's binds.
    init(root: String, logs: URL, workers count: Int, slots: Int = 1, coordinatorArguments: [String] = [],
         workerArguments: [String] = [], clientArguments: [String] = [],
         listen: (clients: String, workers: String) = ("tcp://127.0.0.1:0", "tcp://127.0.0.1:0")) throws {
        folder = logs
        self.root = root
        self.coordinatorArguments = coordinatorArguments
        stateArguments = coordinatorArguments.contains("--no-state")
            ? [] : ["--state", logs.appendingPathComponent("coordinator-state-\(UUID().uuidString)").path]
        self.clientArguments = clientArguments
        try startCoordinator(clients: listen.clients, workers: listen.workers)
        for _ in 0..<count { try addWorker(slots: slots, arguments: workerArguments) }
        try #require(waitForWorkers(count), "workers did not register: \(coordinator.stderr)")
    }

    /// Starts a coordinator on the given endpoints, with `extra` arguments besides the cluster's,
    /// and waits for its `listening` line.
    func startCoordinator(clients: String, workers: String, extra: [String] = []) throws {
        started += 1
        coordinator = try BackgroundProcess(
            "coordinator-\(started)",
            arguments: ["coordinator", "--listen", clients, "--workers-listen", workers, "--root", root] + stateArguments + coordinatorArguments + extra,
            in: folder)
        let ready = coordinator.waitForOutput(timeout: 20) { $0.contains("listening") }
        try #require(ready, "coordinator did not start: \(coordinator.stderr)")
        let line = coordinator.stdout
        clientEndpoint = Self.value(of: "clients", in: line)
        workerEndpoint = Self.value(of: "workers", in: line)
    }

    @discardableResult
    func addWorker(slots: Int = 1, id: String? = nil, arguments: [String] = []) throws -> BackgroundProcess {
        let name = id ?? "worker-\(workers.count + 1)"
        let worker = try BackgroundProcess(
            name, arguments: ["worker", "--coordinator", workerEndpoint, "--slots", "\(slots)", "--id", name] + arguments, in: folder)
        workers.append(worker)
        return worker
    }

    /// `squeeze status --json`.
    func status() throws -> ClusterStatus {
        let outcome = try SqueezeBinary.run(["status", "--coordinator", clientEndpoint, "--json"] + clientArguments, timeout: 30)
        guard outcome.status == 0 else { throw StatusFailed(message: outcome.stderr) }
        return try JSONDecoder().decode(ClusterStatus.self, from: Data(outcome.stdout.utf8))
    }

    /// Waits until exactly `count` workers are registered.
    func waitForWorkers(_ count: Int, timeout: TimeInterval = 20) -> Bool {
        Poll.until(timeout: timeout, every: 0.2) { (try? status().workers.count) == count }
    }

    /// Starts `squeeze submit` against this cluster in the background.
    func submit(_ name: String, _ arguments: [String]) throws -> BackgroundProcess {
        try BackgroundProcess(name, arguments: ["submit", "--coordinator", clientEndpoint] + clientArguments + arguments, in: folder)
    }

    /// The coordinator's journal folder; nil with `--no-state`.
    var stateFolder: String? { stateArguments.last }

    /// Starts `squeeze attach` against this cluster in the background.
    func attach(_ name: String, _ arguments: [String]) throws -> BackgroundProcess {
        try BackgroundProcess(name, arguments: ["attach", "--coordinator", clientEndpoint] + clientArguments + arguments, in: folder)
    }

    /// Runs `squeeze submit` to completion.
    func submitAndWait(_ arguments: [String], timeout: TimeInterval = 300) throws -> SqueezeBinary.Outcome {
        try SqueezeBinary.run(["submit", "--coordinator", clientEndpoint] + clientArguments + arguments, timeout: timeout)
    }

    private static func value(of key: String, in line: String) -> String {
        guard let range = line.range(of: "\(key)=") else { return "" }
        return String(line[range.upperBound...].prefix { !$0.isWhitespace && $0 != "," })
    }

    struct StatusFailed: Error {
        var message: String
    }
}
