import Glibc
import SqueezeCoordinator
import SqueezeIO

extension CompressCommand {
    /// Runs a job of one small file (`SmallFileJob`) without the embedded cluster, on the
    /// calling thread: `SqueezeMain` calls it before Swift concurrency starts. The process's
    /// exit status, or nil when the job is not one (the cluster then runs it, as ever): the
    /// options ask for what only the cluster does (`--tar`, `--resume`, `--trace`, a storage
    /// mode), the file is too big, or the destination holds an earlier run's journal, which
    /// the cluster path reports or resumes.
    func runSmallFile() -> Int32? {
        // Settings out of range are `admits`' to refuse, quietly: `run` then says what is wrong.
        guard !tar, !resume, trace == nil, storage == .auto else { return nil }
        let request = self.request
        guard !Directories.exists(BytePath(DestinationJournal.path(in: request.destinationPath))),
              let job = SmallFileJob.plan(request, defaultBlockSize: CoordinatorConfiguration().blockSize)
        else { return nil }
        let outputs = OutputsInProgress()
        // As gzip does: an interrupt removes the temporary (and the workspace) and ends the process.
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP]) { outputs.abandon(signal: $0) }
        defer { withExtendedLifetime(trap) {} }
        var renderer = ProgressRenderer(mode: OutputMode.choose(json: json))
        let outcome = job.run(threads: workers, outputs: outputs) { renderer.show($0) }
        return ExitStatus.status(of: outcome)
    }
}
