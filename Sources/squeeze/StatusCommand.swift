import ArgumentParser
import Foundation
import SqueezeClient
import SqueezeProtocol
import SqueezeZMQ

/// `squeeze status`: the coordinator's workers and jobs.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a coordinator's workers and jobs.",
        discussion: "Exit status 1 when the coordinator does not answer within a few seconds, so it also serves as a health check."
    )

    @Option(help: "The coordinator's client endpoint (or $SQUEEZE_COORDINATOR).")
    var coordinator = ProcessInfo.processInfo.environment["SQUEEZE_COORDINATOR"] ?? "tcp://127.0.0.1:5555"

    @Flag(help: "Print the status as one JSON object.")
    var json = false

    @OptionGroup var curve: CurveClientOptions

    func run() async throws {
        let keys = try curve.load()
        LogSetup.bootstrap(defaultLevel: .warning)
        try await ZMQRuntime.run { context in
            switch await ClusterClient.fetchStatus(from: coordinator, context: context, curve: keys) {
            case .success(let status):
                FileHandle.standardOutput.write(Data(render(status).utf8))
            case .failure(let error):
                FileHandle.standardError.write(Data("squeeze: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    private func render(_ status: ClusterStatus) -> String {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return ((try? encoder.encode(status)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
        }
        var text = "workers: \(status.workers.count), slots \(status.workers.reduce(0) { $0 + $1.slots }), busy \(status.workers.reduce(0) { $0 + $1.busy })\n"
        if !status.workers.isEmpty {
            text += Self.table(
                ["WORKER", "HOST", "SLOTS", "BUSY", "MB/s", "ITEMS", "REFUSED", "HEARD", "ENGINES"],
                status.workers.map { worker in
                    [worker.workerID + (worker.quarantined == true ? " (quarantined)" : ""), worker.host, "\(worker.slots)", "\(worker.busy)",
                     String(format: "%.1f", worker.megabytesPerSecond), "\(worker.itemsDone)", "\(worker.refusedResults ?? 0)",
                     String(format: "%.1fs ago", worker.lastHeartbeatSeconds),
                     (worker.engines ?? ["zlib"]).joined(separator: ",")]
                })
        }
        text += "jobs: \(status.jobs.filter { $0.state == .running }.count) running, \(status.jobs.count) listed\n"
        if !status.jobs.isEmpty {
            text += Self.table(
                ["JOB", "STATE", "FILES", "BYTES", "DONE", "SOURCE"],
                status.jobs.map { job in
                    let percent = job.bytes == 0 ? 100 : Int(Double(job.bytesDone) * 100 / Double(job.bytes))
                    return ["\(job.jobID)", job.state.rawValue, "\(job.filesDone)/\(job.files)",
                            "\(Formatting.bytes(job.bytesDone))/\(Formatting.bytes(job.bytes))", "\(percent)%", job.source]
                })
        }
        if let refused = status.refusedConnections {
            text += "CURVE: \(status.authorizedKeys ?? 0) authorized keys, \(refused) connections refused\n"
        }
        if status.resultsChecked == false {
            text += "results: published unchecked (--no-verify)\n"
        } else if let refused = status.refusedResults, refused > 0 {
            text += "results refused by the check: \(refused)\n"
        }
        if status.lateResults > 0 || status.malformedMessages > 0 {
            text += "late results dropped: \(status.lateResults), malformed messages dropped: \(status.malformedMessages)\n"
        }
        return text
    }

    /// Left-aligned columns separated by two spaces.
    private static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
