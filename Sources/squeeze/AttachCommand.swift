import ArgumentParser
import Foundation
import Glibc
import SqueezeClient
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ

/// `squeeze attach JOB`: follows a job that is already running (submitted with `--detach`,
/// from another terminal, or resumed by a restarted coordinator), with the same view, summary
/// and exit status as `submit`.
struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Follow a job that is already running on a coordinator.",
        discussion: """
        Shows the job as submit does, from where it stands now. Ctrl-C stops watching; the job \
        goes on (cancel it with Ctrl-C in its submit, or attach again). A job that already ended \
        prints its summary. Exit status as submit's: 0 when every regular file was compressed, \
        2 when some failed, 1 when the job failed or was cancelled, or on a fatal error.
        """
    )

    @Argument(help: "The job id (what submit --detach printed, or squeeze status lists).")
    var job: UInt64

    @Option(help: "The coordinator's client endpoint (or $SQUEEZE_COORDINATOR).")
    var coordinator = ProcessInfo.processInfo.environment["SQUEEZE_COORDINATOR"] ?? "tcp://127.0.0.1:5555"

    @Flag(help: "One JSON event per line on stdout.")
    var json = false

    @OptionGroup var curve: CurveClientOptions

    func run() async throws {
        let keys = try curve.load()
        LogSetup.bootstrap(defaultLevel: .warning)
        try await ZMQRuntime.run { context in
            let client = try await ClusterClient.connect(to: coordinator, context: context, curve: keys)
            let id = job
            // Watching only: leaving stops the view, never the job.
            let trap = SignalTrap { _ in
                FileHandle.standardError.write(Data("\nsqueeze: stopped watching; job \(id) goes on (squeeze attach \(id))\n".utf8))
                Glibc.exit(130)
            }
            defer { withExtendedLifetime(trap) {} }
            let outcome: Result<JobSummary?, any Error>
            do {
                _ = try await client.withLiveness { try await client.attach(job: id, owner: false) }
                outcome = .success(try await JobFollower(client: client, jobID: id, mode: OutputMode.choose(json: json), owner: false).run())
            } catch {
                outcome = .failure(error)
            }
            await client.close()
            try ExitStatus.finish(outcome)
        }
    }
}
