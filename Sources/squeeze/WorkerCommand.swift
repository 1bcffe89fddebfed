import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import SqueezeGzip
import SqueezeObservability
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ

/// `squeeze worker`: compresses blocks for a coordinator, reconnecting whenever it is lost.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker: compress blocks for a coordinator.",
        discussion: "It reconnects with backoff whenever the coordinator goes away. SIGTERM or SIGINT drains it: it stops taking work, finishes or hands back what it holds, says goodbye and exits 0."
    )

    @Option(help: "The coordinator's worker endpoint.")
    var coordinator = "tcp://127.0.0.1:5556"

    @Option(help: "Items compressed at once (default: number of cores).")
    var slots = min(ProcessInfo.processInfo.activeProcessorCount, WorkerHello.slotRange.upperBound)

    @Option(help: "Worker id shown by status (default: host-pid-random).")
    var id: String?

    @Option(help: "How long a draining worker may finish what it holds, e.g. 5s.")
    var drainGrace: Interval?

    @Option(help: "Answer health checks (squeeze health) here, e.g. tcp://127.0.0.1:5557.")
    var health: String?

    @Option(help: "Engines to offer, comma-separated (default: zlib,libdeflate,isal,stored). Jobs using another engine are not sent here.")
    var engines: String?

    @Option(help: "How to reach a job's files: auto (probe each job: read and write them directly when they are visible at the coordinator's paths), shared, or remote (blocks travel in messages).")
    var storage: StorageMode = .auto

    @Option(help: .hidden)
    var testItemDelay: Interval?

    @Option(help: .hidden)
    var testPublishDelay: Interval?

    @Option(help: .hidden)
    var testScanOmit: String?

    @Flag(help: .hidden)
    var testWholeTableLie = false
    @Option(help: ArgumentHelp("Serve Prometheus metrics (/metrics) over HTTP here: PORT or HOST:PORT, loopback unless a host is given.", valueName: "[HOST:]PORT"))
    var http: String?

    @OptionGroup var curve: CurveClientOptions

    func validate() throws {
        if let http { _ = try HTTPEndpoint.address(http) }
        if let id, WorkerHello(workerID: id, host: "-", slots: 1, pid: 0).defect != nil {
            throw ValidationError("--id must be 1-\(WorkerHello.maxNameBytes) bytes without control characters")
        }
        guard WorkerHello.slotRange.contains(slots) else {
            throw ValidationError("--slots must be \(WorkerHello.slotRange.lowerBound)-\(WorkerHello.slotRange.upperBound)")
        }
    }

    /// The engines named by `--engines`; exits 1 with one line for an unknown or empty list.
    private func offeredEngines() throws -> [CompressionEngine] {
        guard let engines else { return CompressionEngine.allCases }
        var offered: [CompressionEngine] = []
        for name in engines.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let engine = CompressionEngine(rawValue: name) else {
                FileHandle.standardError.write(Data("squeeze: --engines: unknown engine \(name.debugDescription) (choose from zlib, libdeflate, isal)\n".utf8))
                throw ExitCode(1)
            }
            if !offered.contains(engine) { offered.append(engine) }
        }
        guard !offered.isEmpty else {
            FileHandle.standardError.write(Data("squeeze: --engines: name at least one engine\n".utf8))
            throw ExitCode(1)
        }
        return offered
    }

    func run() async throws {
        let offered = try offeredEngines()
        let keys = try curve.load()
        LogSetup.bootstrap(defaultLevel: .info)
        let logger = Logger(label: "squeeze.worker")
        try await ZMQRuntime.run { context in
            var settings = WorkerConfiguration(coordinator: coordinator, slots: slots, workerID: id)
            if let drainGrace { settings.drainGrace = drainGrace.duration }
            settings.healthEndpoint = health
            settings.engines = offered
            settings.storage = storage
            settings.itemDelayForTesting = testItemDelay?.duration
            settings.publishDelayForTesting = testPublishDelay?.duration
            settings.scanOmissionForTesting = testScanOmit.map { Array($0.utf8) }
            settings.wholeTableLieForTesting = testWholeTableLie
            settings.curve = keys
            let exposition = http.map { _ in MetricsExposition(durationBuckets: WorkerMetrics.durationBuckets) }
            settings.metricsFactory = exposition?.factory
            let worker = Worker(configuration: settings, context: context, logger: logger)
            var services: [any Service] = [WorkerService(worker: worker)]
            if let http, let exposition {
                services.insert(try HTTPEndpoint.server(http, role: "worker", metrics: exposition, feed: nil, logger: logger), at: 0)
            }
            logger.info("starting", metadata: ["worker": "\(settings.workerID)", "slots": "\(settings.slots)", "coordinator": "\(coordinator)", "curve": "\(keys.map { "key \($0.own.publicKey.z85)" } ?? "off")"])
            try await ServiceRunner.run(services, grace: settings.drainGrace + .seconds(5), logger: logger)
            logger.info("stopped", metadata: ["worker": "\(settings.workerID)", "items": "\(worker.itemsDone)"])
        }
    }
}
