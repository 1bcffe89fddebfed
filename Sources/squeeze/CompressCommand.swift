import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SqueezeCoordinator
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ

/// `squeeze compress`: the coordinator and N workers in this process, talking the cluster
/// protocol over ZeroMQ `inproc://`.
struct CompressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compress",
        abstract: "Compress a folder (or one file) into DEST/<path>.gz, or a folder into one .tar.gz (--tar), on this machine.",
        discussion: "Exit status: 0 when every regular file was compressed, 2 when some failed, 1 on a fatal error."
    )

    @Argument(help: "The folder or file to compress.")
    var source: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "Output folder (default: SRC.squeezed beside SRC); with --tar, the archive (default: SRC.tar.gz).")
    var destination: String?

    @Flag(help: "Make one .tar.gz of the folder (pax format: names, modes, owners, times, empty folders, symlinks, FIFOs), one gzip member, the same bytes whatever the worker count.")
    var tar = false

    @OptionGroup var compression: CompressionOptions

    @Option(help: "Worker count (default: number of cores).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Block size, e.g. 512K or 1M.")
    var blockSize: ByteSize?

    @Flag(help: "Replace existing outputs (and start over, dropping an unfinished run's journal).")
    var force = false

    @Flag(help: "Finish an earlier run into the same DEST that was killed, interrupted or had failures: its complete outputs whose source is unchanged are kept, the rest compressed.")
    var resume = false

    @Flag(help: "Keep no journal in DEST while the job runs (a killed run then cannot be resumed).")
    var noJournal = false

    @Option(help: "How the in-process workers reach the files: auto or shared (they read and write them: they are the coordinator's own process, so no probe is needed), or remote (every block passes through the coordinator, as over a network).")
    var storage: StorageMode = .auto

    @Flag(help: "One JSON event per line on stdout.")
    var json = false

    @Option(help: ArgumentHelp("Write a timeline of the job to FILE (Chrome trace-event JSON: open it in ui.perfetto.dev or chrome://tracing): every item on its worker's slot, with its phases.", valueName: "FILE"))
    var trace: String?

    func validate() throws {
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        if resume && force { throw ValidationError("--resume keeps finished outputs, --force replaces them: choose one") }
        if resume && noJournal { throw ValidationError("--resume needs the journal: drop --no-journal") }
        if resume && tar { throw ValidationError("--tar cannot --resume: an archive is made whole or not at all") }
    }

    func run() async throws {
        try compression.check()
        LogSetup.bootstrap(defaultLevel: .warning)
        let request = self.request
        let traceOutput = trace.map(TraceOutput.init(path:))
        var settings = CoordinatorConfiguration()
        // The workers are this process's own threads: no answer comes from anyone else.
        settings.verifyResults = false
        // One process: a worker's listing costs the same CPU as the coordinator's walk, which
        // plans 4,096 files a step.
        settings.workerScans = false
        // This command resumes its one job itself, to follow it.
        settings.resumesJournaledJobs = false
        // libzmq and its libraries load on another thread while the journal opens (each takes
        // milliseconds, which a small job notices); ZMQRuntime reports a failure to load.
        async let libraryLoaded = BlockingIOPool.runOnce { try? ZMQLibrary.load() }
        let journal: DestinationJournal?
        // An archive is one output, published whole or not at all: nothing to resume.
        if noJournal || tar {
            journal = nil
        } else {
            let (request, blockSize, resume, force) = (request, settings.blockSize, resume, force)
            journal = try await BlockingIOPool.runOnce {
                try DestinationJournal.open(for: request, defaultBlockSize: blockSize, resume: resume, force: force)
            }
        }
        settings.journal = journal?.journal
        _ = try? await libraryLoaded
        let outcome = await run(request, settings: settings, resuming: journal?.earlier, trace: traceOutput)
        if let journal {
            try? await BlockingIOPool.runOnce { journal.end(after: outcome) }
        }
        try await traceOutput?.finish(json: json)
        try ExitStatus.finish(outcome)
    }

    /// The job this command asks for.
    var request: JobRequest {
        var request = JobRequest(source: source, destination: destination, level: compression.level, force: force,
                                 engine: compression.engine, tar: tar ? true : nil)
        request.blockSize = blockSize?.bytes
        request.trace = trace == nil ? nil : true
        request.fileEvents = json ? true : nil
        return request
    }

    /// Runs the coordinator and the workers until the job ends; the job's summary, or why it
    /// could not run.
    private func run(
        _ request: JobRequest, settings: CoordinatorConfiguration, resuming earlier: JournalJob?, trace: TraceOutput?
    ) async -> Result<JobSummary?, any Error> {
        do {
            return try await ZMQRuntime.run { context in
                await run(request, settings: settings, resuming: earlier, trace: trace, context: context)
            }
        } catch {
            return .failure(error)
        }
    }

    private func run(
        _ request: JobRequest, settings: CoordinatorConfiguration, resuming earlier: JournalJob?, trace: TraceOutput?, context: ZMQContext
    ) async -> Result<JobSummary?, any Error> {
        let coordinator = Coordinator(configuration: settings, context: context)
        let address = "inproc://squeeze-workers"
        let mode = OutputMode.choose(json: json)
        let (ready, readySink) = AsyncStream.makeStream(of: Void.self)
        let (signals, signalSink) = AsyncStream.makeStream(of: Int32.self)
        let trap = SignalTrap { signalSink.yield($0) }
        defer { withExtendedLifetime(trap) {} }
        // Set before `cancelAll`, read after `submit` returns: an interrupt that comes while
        // the job is still being scanned (so `cancelAll` finds nothing) cancels it anyway.
        let interrupted = NIOLockedValueBox(false)

        let outcome: Result<JobSummary?, any Error> = await withTaskGroup(of: Result<JobSummary?, any Error>?.self) { group in
            group.addTask {
                do {
                    try await coordinator.run(workerEndpoints: [address]) { _ in readySink.finish() }
                    return nil
                } catch {
                    readySink.finish()
                    return .failure(error)
                }
            }
            for _ in 0..<workers {
                group.addTask {
                    var worker = WorkerConfiguration(coordinator: address, slots: 1)
                    // In-process workers are the coordinator's own process: they see its very
                    // files, so a probe could only say yes; "auto" skips its round trips.
                    worker.storage = storage == .auto ? .shared : storage
                    await Worker(configuration: worker, context: context).run()
                    return nil
                }
            }
            group.addTask {
                for await _ in signals {
                    interrupted.withLockedValue { $0 = true }
                    await coordinator.cancelAll(reason: "interrupted")
                    break
                }
                return nil
            }
            group.addTask {
                for await _ in ready {}
                await Self.awaitRegistration(of: workers, with: coordinator)
                do {
                    let (accepted, events) = if let earlier {
                        try await coordinator.resume(request, from: earlier)
                    } else {
                        try await coordinator.submit(request)
                    }
                    if interrupted.withLockedValue({ $0 }) {
                        await coordinator.cancel(job: accepted.jobID, reason: "interrupted")
                    }
                    var renderer = ProgressRenderer(mode: mode, trace: trace)
                    return .success(await renderer.follow(events))
                } catch {
                    return .failure(error)
                }
            }
            var outcome: Result<JobSummary?, any Error> = .success(nil)
            for await result in group {
                if let result {
                    outcome = result
                    break
                }
            }
            signalSink.finish()
            group.cancelAll()
            return outcome
        }
        return outcome
    }

    /// Waits, briefly, until the in-process workers have registered. They do within
    /// milliseconds of the coordinator's start; a job submitted before then gives all its first
    /// items to the first worker (each may hold several), so a small file's two blocks would
    /// queue on one core while the other waits idle. Never longer than half a second: a worker
    /// that cannot register leaves the job to the others, as in a cluster.
    private static func awaitRegistration(of count: Int, with coordinator: Coordinator) async {
        let deadline = ContinuousClock.now + .milliseconds(500)
        while !Task.isCancelled, await coordinator.status().workers.count < count, ContinuousClock.now < deadline {
            // A cancelled sleep returns at once: the check above ends the loop rather than spin.
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
