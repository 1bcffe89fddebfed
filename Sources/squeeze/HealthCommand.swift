import ArgumentParser
import Foundation
import SqueezeClient
import SqueezeProtocol
import SqueezeZMQ

/// `squeeze health`: exits 0 when a coordinator's client endpoint, or a worker's `--health`
/// endpoint, answers and is serving; for container health checks.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check that a coordinator or worker is serving (exit 0) or not (exit 1).",
        discussion: "A worker is healthy while it is registered with its coordinator and hearing from it."
    )

    @Option(help: "A coordinator's client endpoint or a worker's --health endpoint.")
    var endpoint = "tcp://127.0.0.1:5555"

    @Option(help: "Seconds to wait for an answer (1-3600).")
    var timeout = 3

    // Options only, not $SQUEEZE_KEY: a worker's --health endpoint has no CURVE, and a check
    // run in a worker's environment must not turn it on.
    @Option(help: "A secret certificate, for a coordinator that uses CURVE (its own .key does: it always lets itself in).")
    var key: String?

    @Option(help: "The coordinator's public certificate, with --key.")
    var coordinatorKey: String?

    func run() async throws {
        guard (1...3600).contains(timeout) else { throw CommandFailure.exit("--timeout \(timeout): must be 1-3600 seconds") }
        let keys = try CurveClientOptions.keys(key: key, coordinatorKey: coordinatorKey)
        LogSetup.bootstrap(defaultLevel: .error)
        try await ZMQRuntime.run { context in
            switch await ClusterClient.fetchStatus(from: endpoint, context: context, liveness: timeout, curve: keys) {
            case .success(let status):
                let running = status.jobs.filter { $0.state == .running }.count
                let line = "ok: \(endpoint) is serving (\(status.workers.count) worker(s) registered, \(running) job(s) running)"
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            case .failure(let error):
                FileHandle.standardError.write(Data("squeeze: unhealthy: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
