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

    @Option(help: "Seconds to wait for an answer.")
    var timeout = 3

    func run() async throws {
        LogSetup.bootstrap(defaultLevel: .error)
        try await ZMQRuntime.run { context in
            switch await ClusterClient.fetchStatus(from: endpoint, context: context, liveness: max(1, timeout)) {
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
