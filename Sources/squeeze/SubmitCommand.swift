import ArgumentParser
import Foundation
import Glibc
import NIOConcurrencyHelpers
import SqueezeClient
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ

/// `squeeze submit`: sends a job to a coordinator and follows it like `compress` does.
struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Submit a folder (or one file) to a coordinator and follow the job.",
        discussion: """
        Paths are as the coordinator sees them; relative ones are taken against its --root. \
        Ctrl-C cancels the job on the cluster. If the coordinator falls silent mid-job, submit \
        waits up to 30 s for it to come back and follows the job again (a coordinator with its \
        journal resumes it). Exit status: 0 when every regular file was compressed, 2 when \
        some failed, 1 on a fatal error or when the job was cancelled.
        """
    )

    @Argument(help: "The folder or file to compress, as the coordinator sees it.")
    var source: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "Output folder (default: SRC.squeezed beside SRC); with --tar, the archive (default: SRC.tar.gz).")
    var destination: String?

    @Flag(help: "Make one .tar.gz of the folder, compressed by the cluster's workers (see `compress --tar`).")
    var tar = false

    @Option(help: "The coordinator's client endpoint (or $SQUEEZE_COORDINATOR).")
    var coordinator = ProcessInfo.processInfo.environment["SQUEEZE_COORDINATOR"] ?? "tcp://127.0.0.1:5555"

    @OptionGroup var compression: CompressionOptions

    @Option(help: "Block size, e.g. 512K or 1M (default: the coordinator's).")
    var blockSize: ByteSize?

    @Flag(help: "Replace existing outputs.")
    var force = false

    @Flag(help: "One JSON event per line on stdout.")
    var json = false

    @Flag(help: "Print the job id and return; the job runs on.")
    var detach = false

    @Flag(help: "Publish this job's outputs without checking the workers' answers.")
    var noVerify = false

    @Option(help: ArgumentHelp("Write a timeline of the job to FILE (Chrome trace-event JSON: open it in ui.perfetto.dev or chrome://tracing): every item on its worker's slot, with its phases.", valueName: "FILE"))
    var trace: String?

    @OptionGroup var curve: CurveClientOptions

    func validate() throws {
        if detach && trace != nil { throw ValidationError("--trace follows the job to write its timeline: drop --detach") }
    }

    func run() async throws {
        try compression.check()
        let keys = try curve.load()
        LogSetup.bootstrap(defaultLevel: .warning)
        try await ZMQRuntime.run { context in
            let client = try await ClusterClient.connect(to: coordinator, context: context, curve: keys)
            var asked = JobRequest(
                source: source, destination: destination, level: compression.level, force: force,
                blockSize: blockSize?.bytes, detached: detach ? true : nil, engine: compression.engine,
                verify: noVerify ? false : nil, submitter: "\(NSUserName())@\(ProcessInfo.processInfo.hostName)",
                tar: tar ? true : nil)
            asked.trace = trace == nil ? nil : true
            asked.fileEvents = json ? true : nil
            let request = asked
            let traceOutput = trace.map(TraceOutput.init(path:))
            let mode = OutputMode.choose(json: json)
            let jobID = NIOLockedValueBox<UInt64?>(nil)
            let interrupts = NIOLockedValueBox(0)
            // First Ctrl-C: cancel on the cluster and wait for the job's `finished`. Second: leave now.
            let trap = SignalTrap { _ in
                if interrupts.withLockedValue({ count in count += 1; return count }) > 1 { Glibc.exit(130) }
                if let id = jobID.withLockedValue({ $0 }) { client.cancel(job: id) }
            }
            defer { withExtendedLifetime(trap) {} }

            let outcome: Result<JobSummary?, any Error>
            do {
                let accepted = try await client.withLiveness { try await client.submit(request) }
                jobID.withLockedValue { $0 = accepted.jobID }
                client.follow(job: accepted.jobID)
                if interrupts.withLockedValue({ $0 }) > 0 { client.cancel(job: accepted.jobID) }
                if detach {
                    printDetached(accepted, mode: mode)
                    await client.close()
                    return
                }
                outcome = .success(try await JobFollower(client: client, jobID: accepted.jobID, mode: mode, owner: true, trace: traceOutput).run())
            } catch {
                outcome = .failure(error)
            }
            await client.close()
            try await traceOutput?.finish(json: json)
            try ExitStatus.finish(outcome)
        }
    }

    private func printDetached(_ accepted: JobAccepted, mode: OutputMode) {
        let line: String
        if mode == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            line = (try? encoder.encode(accepted)).map { String(decoding: $0, as: UTF8.self) } ?? "{\"jobID\":\(accepted.jobID)}"
        } else {
            line = "\(accepted.jobID)"
        }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
