import ArgumentParser
import Foundation
import SqueezeZMQ

/// `--key` and `--coordinator-key` of the commands that connect to a coordinator.
struct CurveClientOptions: ParsableArguments {
    @Option(help: "This side's secret certificate (squeeze keygen), for a coordinator that uses CURVE (or $SQUEEZE_KEY).")
    var key: String?

    @Option(help: "The coordinator's public certificate (or $SQUEEZE_COORDINATOR_KEY).")
    var coordinatorKey: String?

    /// The keys given by the options, or else by `$SQUEEZE_KEY` and `$SQUEEZE_COORDINATOR_KEY`;
    /// nil when neither is given.
    func load() throws -> CurveClientKeys? {
        let environment = ProcessInfo.processInfo.environment
        return try Self.keys(
            key: key ?? environment["SQUEEZE_KEY"].flatMap { $0.isEmpty ? nil : $0 },
            coordinatorKey: coordinatorKey ?? environment["SQUEEZE_COORDINATOR_KEY"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Both certificates read, or nil when neither is named; exits with one line when only
    /// one is, or when a file is not the certificate it should be.
    static func keys(key: String?, coordinatorKey: String?) throws -> CurveClientKeys? {
        switch (key, coordinatorKey) {
        case (nil, nil):
            return nil
        case (_?, nil):
            throw CommandFailure.exit("--key needs --coordinator-key too (the coordinator's public certificate, or $SQUEEZE_COORDINATOR_KEY)")
        case (nil, _?):
            throw CommandFailure.exit("--coordinator-key needs --key too (this side's secret certificate, or $SQUEEZE_KEY)")
        case let (key?, coordinatorKey?):
            return CurveClientKeys(
                own: try KeyFiles.secret(key, option: "--key"),
                server: try KeyFiles.publicKey(coordinatorKey, option: "--coordinator-key"))
        }
    }
}
