import ArgumentParser
import Foundation
import Logging
import SqueezeObservability

/// `--http` on `coordinator` and `worker`: the address checked, and the server with one
/// stable stdout line once bound (`squeeze ROLE: http http://HOST:PORT/`), so scripts and
/// tests that ask for port 0 learn the port.
enum HTTPEndpoint {
    /// The address `text` names, or a validation error naming `--http`.
    static func address(_ text: String) throws -> HTTPAddress {
        do {
            return try HTTPAddress(parsing: text)
        } catch {
            throw ValidationError("--http \(error)")
        }
    }

    /// The server for `role` on `text`, serving `metrics` and, given `feed`, the live page.
    static func server(_ text: String, role: String, metrics: MetricsExposition, feed: DashboardFeed?, logger: Logger) throws -> ObservabilityServer {
        let address = try address(text)
        if !address.isLoopback {
            logger.warning("--http \(address) listens beyond loopback: its pages and metrics have no authentication")
        }
        return ObservabilityServer(address: address, metrics: metrics, feed: feed, logger: logger) { bound in
            FileHandle.standardOutput.write(Data("squeeze \(role): http http://\(bound)/\n".utf8))
            logger.info("http listening", metadata: ["address": "\(bound)"])
        }
    }
}
