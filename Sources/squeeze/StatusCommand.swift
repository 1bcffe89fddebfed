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

    @Flag(help: "Print the status as one JSON object (with the whole history the coordinator keeps).")
    var json = false

    @Option(help: "Ended jobs to list, newest first.")
    var history = 10

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
        let running = status.jobs.filter { $0.state == .running }, ended = status.jobs.filter { $0.state != .running }
        text += "jobs: \(running.count) running, \(ended.count) ended in the history\n"
        let shown = running + ended.prefix(max(0, history))
        if !shown.isEmpty {
            text += Self.table(["JOB", "STATE", "FILES", "BYTES", "DONE", "RATIO", "TIME", "SUBMITTED", "BY", "SOURCE"], shown.map(Self.row))
        }
        if ended.count > max(0, history) {
            text += "(\(ended.count - max(0, history)) older jobs: --history N or --json)\n"
        }
        for job in shown where job.state != .running && job.state != .completed {
            if let message = job.message { text += "job \(job.jobID) \(job.state.rawValue): \(message)\n" }
        }
        if let refused = status.refusedConnections {
            text += "CURVE: \(status.authorizedKeys ?? 0) authorized keys, \(refused) connections refused\n"
        }
        if status.resultsChecked == false {
            text += "results: published unchecked (--no-verify)\n"
        } else if let refused = status.refusedResults, refused > 0 {
            text += "results refused by the check: \(refused)\n"
        }
        if let refused = status.refusedStitches, refused > 0 {
            text += "stitches refused by the check (joined by the coordinator instead): \(refused)\n"
        }
        if status.lateResults > 0 || status.malformedMessages > 0 {
            text += "late results dropped: \(status.lateResults), malformed messages dropped: \(status.malformedMessages)\n"
        }
        return text
    }

    /// A job's line: counts, how far, the ratio so far, how long, when and by whom.
    private static func row(_ job: JobStatus) -> [String] {
        let percent = job.bytes == 0 ? 100 : Int(min(Double(job.bytesDone) / Double(job.bytes), 1) * 100)
        let failed = (job.filesFailed ?? 0) > 0 ? " (\(job.filesFailed ?? 0) failed)" : ""
        let ratio = job.bytesOut.flatMap { out in job.bytesDone > 0 ? String(format: "%.1f%%", Double(out) / Double(job.bytesDone) * 100) : nil }
        return ["\(job.jobID)", job.state.rawValue, "\(job.filesDone)/\(job.files)\(failed)",
                "\(Formatting.bytes(job.bytesDone))/\(Formatting.bytes(job.bytes))", "\(percent)%", ratio ?? "--",
                job.seconds.map(Formatting.duration) ?? "--", job.submittedAt.map(Formatting.date) ?? "--",
                job.submitter ?? "--", job.source]
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
