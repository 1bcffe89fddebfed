import ArgumentParser
import Foundation
import Logging
import SqueezeCoordinator
import SqueezeIO
import SqueezeObservability
import SqueezeProtocol
import SqueezeZMQ
import ServiceLifecycle

/// `squeeze coordinator`: the long-running service clients submit jobs to and workers
/// connect to.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Run the coordinator: accept jobs from clients and hand their blocks to workers.",
        discussion: "SIGTERM or SIGINT stops it: running jobs fail cleanly, their clients are told, and it exits 0."
    )

    @Option(help: "Client endpoint (submit, status). Without --key only a loopback address, unless --insecure.")
    var listen = "tcp://127.0.0.1:5555"

    @Option(help: "Worker endpoint. Without --key only a loopback address, unless --insecure.")
    var workersListen = "tcp://127.0.0.1:5556"

    @Option(help: "Serve only paths under this folder; relative job paths are taken against it. Required when listening beyond loopback.")
    var root: String?

    @Option(help: "This coordinator's secret certificate (squeeze keygen): CURVE encryption and authentication on both endpoints. Needs --authorized.")
    var key: String?

    @Option(help: "With --key: the folder of public certificates (.pub) of the workers and clients allowed to connect; changes take effect without a restart.")
    var authorized: String?

    @Flag(help: "Listen beyond loopback without --key: no encryption, and anyone who reaches the ports can submit jobs.")
    var insecure = false

    @Option(help: "Default block size, e.g. 512K or 1M.")
    var blockSize: ByteSize?

    @Option(help: "Bytes a work item of a large file aims for (consecutive blocks go together), e.g. 4M; the head of a long file goes in items four times as large, its last eight items are this size.")
    var itemSize: ByteSize?

    @Option(help: "Files of up to this size a shared-storage worker that scans compresses whole in its batch, e.g. 4M; larger files are split over workers (default 16M; at most 64M; the block size or less splits every file of more than one block).")
    var wholeFileSize: ByteSize?

    @Option(help: "Compressed bytes of a file's pieces a shared-storage worker joins per stitch segment (default 64M).")
    var stitchSegment: ByteSize?

    @Option(help: "Bytes of items the coordinator may hold for workers that get them in messages (remote storage), across jobs, e.g. 2G: more feeds more remote workers at once (default: an eighth of this machine's or container's memory, 64M to 4G).")
    var relayMemory: ByteSize?

    @Option(help: "Heartbeat period, both ways, e.g. 1s or 250ms.")
    var heartbeat: Interval?

    @Option(help: "Silent heartbeat periods after which a worker or client counts as gone.")
    var liveness = 3

    @Option(help: "Threads for disk reads, writes and fsync.")
    var ioThreads = 4

    @Option(help: "Least time a worker may hold an item before a copy goes to another worker, e.g. 30s (it gets ten times what an item of its size takes at the observed speed, if that is longer).")
    var itemDeadline: Interval?

    @Flag(help: "Publish outputs without checking the workers' answers (faster; a faulty or hostile worker can then corrupt outputs).")
    var noVerify = false

    @Flag(help: "Read the sources of remote workers' items through the page cache, not with O_DIRECT (for sources hot in memory on a device slower than the workers).")
    var bufferedReads = false

    @Option(help: "Folder of the job journal (jobs and published outputs, in SQLite), so a restarted coordinator resumes its running jobs (default: $XDG_STATE_HOME/squeeze or ~/.local/state/squeeze). One coordinator per folder.")
    var state: String?

    @Flag(help: "Keep no journal: a restart forgets running jobs.")
    var noState = false

    @Option(help: "Jobs running or starting at once; a submit past it is refused (tooMany).")
    var maxJobs = 512

    @Option(help: "Jobs running or starting at once from one client (its CURVE key, or without one its address).")
    var maxJobsPerClient = 256

    @Option(help: "Ended jobs the history keeps (squeeze status lists them, across restarts with a journal).")
    var history = 100

    @Option(help: "Ended jobs older than this leave the journal's history, e.g. 12h (default: 30d).")
    var historyAge: Interval?

    @Option(help: ArgumentHelp("Serve Prometheus metrics (/metrics), the live page (/) and its JSON (/api/status) over HTTP here: PORT or HOST:PORT, loopback unless a host is given.", valueName: "[HOST:]PORT"))
    var http: String?

    @Option(help: .hidden)
    var testWriteDelay: Interval?

    /// One good verdict in this many is audited (tests; the default is the configuration's).
    @Option(help: .hidden)
    var testAuditInterval: Int?

    func validate() throws {
        let livenessRange = ProtocolLimits.liveness, milliseconds = ProtocolLimits.heartbeatMilliseconds
        guard livenessRange.contains(liveness) else {
            throw ValidationError("--liveness must be \(livenessRange.lowerBound)-\(livenessRange.upperBound)")
        }
        if let heartbeat, !(Duration.milliseconds(milliseconds.lowerBound)...Duration.milliseconds(milliseconds.upperBound)).contains(heartbeat.duration) {
            throw ValidationError("--heartbeat must be between \(milliseconds.lowerBound)ms and \(milliseconds.upperBound / 1000)s")
        }
        guard ioThreads >= 1 else { throw ValidationError("--io-threads must be at least 1") }
        if let http { _ = try HTTPEndpoint.address(http) }
        guard (0...100_000).contains(history) else { throw ValidationError("--history must be 0-100000") }
        guard (1...1_000_000).contains(maxJobs) else { throw ValidationError("--max-jobs must be 1-1000000") }
        guard (1...1_000_000).contains(maxJobsPerClient) else { throw ValidationError("--max-jobs-per-client must be 1-1000000") }
        if noState && state != nil { throw ValidationError("--state and --no-state exclude each other") }
        for (name, size) in [("--item-size", itemSize), ("--stitch-segment", stitchSegment)] {
            if let size, !(4096...(1 << 30)).contains(size.bytes) { throw ValidationError("\(name) must be between 4K and 1G") }
        }
        if let relayMemory, !((1 << 20)...(1 << 40)).contains(relayMemory.bytes) { throw ValidationError("--relay-memory must be between 1M and 1T") }
        if let wholeFileSize, !(4096...ProtocolLimits.maxBlockSize).contains(wholeFileSize.bytes) { throw ValidationError("--whole-file-size must be between 4K and 64M") }
        if let testAuditInterval, !(1...1_000_000).contains(testAuditInterval) { throw ValidationError("--test-audit-interval must be 1-1000000") }
    }

    func run() async throws {
        LogSetup.bootstrap(defaultLevel: .info)
        let logger = Logger(label: "squeeze.coordinator")
        let security = try security(logger: logger)
        var settings = CoordinatorConfiguration()
        if let blockSize { settings.blockSize = blockSize.bytes }
        if let itemSize { settings.itemBytes = itemSize.bytes }
        if let stitchSegment { settings.stitchSegmentBytes = stitchSegment.bytes }
        if let wholeFileSize { settings.wholeFileBytes = wholeFileSize.bytes }
        if let testAuditInterval { settings.auditInterval = testAuditInterval }
        if let relayMemory { settings.relayBudgetBytes = relayMemory.bytes }
        if let heartbeat { settings.heartbeatInterval = heartbeat.duration }
        settings.liveness = liveness
        settings.ioThreads = ioThreads
        if let itemDeadline { settings.itemDeadline = itemDeadline.duration }
        settings.root = root
        settings.security = security
        settings.writeDelayForTesting = testWriteDelay?.duration
        settings.verifyResults = !noVerify
        settings.directReads = !bufferedReads
        settings.historyJobs = history
        settings.maxJobs = maxJobs
        settings.maxJobsPerClient = maxJobsPerClient
        if let historyAge { settings.historyAge = historyAge.duration }
        let exposition = http.map { _ in MetricsExposition(durationBuckets: CoordinatorMetrics.durationBuckets) }
        settings.metricsFactory = exposition?.factory
        if !noState {
            let folder = state ?? StateFolder.defaultPath()
            settings.journal = try await BlockingIOPool.runOnce { try StateFolder.openJournal(in: folder) }
        }
        let relayMiB = settings.relayBudgetBytes >> 20
        try await ZMQRuntime.run { context in
            let coordinator = Coordinator(configuration: settings, context: context, logger: logger)
            let service = CoordinatorService(
                coordinator: coordinator, workerEndpoints: [workersListen], clientEndpoints: [listen]
            ) { bound in
                // One stable line on stdout, so scripts (and tests binding port *) learn the ports.
                let line = "squeeze coordinator: listening clients=\(bound.clients.joined(separator: ",")) workers=\(bound.workers.joined(separator: ","))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
                logger.info("listening", metadata: [
                    "clients": "\(bound.clients)", "workers": "\(bound.workers)", "root": "\(root ?? "-")",
                    "relayMemory": "\(relayMiB) MiB",
                    "curve": "\(security.map { "key \($0.keys.own.publicKey.z85)" } ?? "off")",
                ])
            }
            var services: [any Service] = [service]
            if let http, let exposition {
                let feed = DashboardFeed(version: Squeeze.configuration.version) { await coordinator.status() }
                // First: the page and metrics stay up until the coordinator has drained.
                services.insert(try HTTPEndpoint.server(http, role: "coordinator", metrics: exposition, feed: feed, logger: logger), at: 0)
            }
            do {
                try await ServiceRunner.run(services, grace: .seconds(10), logger: logger)
            } catch {
                FileHandle.standardError.write(Data("squeeze: \(error)\n".utf8))
                throw ExitCode(1)
            }
            logger.info("stopped")
        }
    }

    /// CURVE from --key and --authorized, and the safe defaults: without a key only loopback
    /// (unless --insecure), and beyond loopback only with --root. Each refusal is one line.
    private func security(logger: Logger) throws -> CoordinatorSecurity? {
        var security: CoordinatorSecurity?
        switch (key, authorized) {
        case (nil, nil):
            security = nil
        case (_?, nil):
            throw CommandFailure.exit("--key needs --authorized too (the folder of public certificates allowed to connect)")
        case (nil, _?):
            throw CommandFailure.exit("--authorized needs --key too (this coordinator's secret certificate)")
        case let (key?, folder?):
            guard !insecure else { throw CommandFailure.exit("--insecure contradicts --key: choose one") }
            let pair = try KeyFiles.secret(key, option: "--key")
            let allowList = AuthorizedKeys(folder: folder, own: pair.publicKey, logger: logger)
            do {
                _ = try allowList.load()
            } catch {
                throw CommandFailure.exit("--authorized \(error)")
            }
            security = CoordinatorSecurity(keys: CurveServerKeys(own: pair), authorized: allowList)
        }
        let exposed = [("--listen", listen), ("--workers-listen", workersListen)].first { !ZMQBindAddress.isLocal($0.1) }
        guard let (option, address) = exposed else { return security }
        if security == nil && !insecure {
            throw CommandFailure.exit(
                "\(option) \(address) is not a loopback address: give --key and --authorized to listen there with CURVE, or --insecure to listen without encryption or authentication")
        }
        guard root != nil else {
            throw CommandFailure.exit("\(option) \(address) listens beyond loopback: give --root too, so jobs can name only paths under it")
        }
        if security == nil {
            logger.warning("listening beyond loopback without CURVE (--insecure): traffic is in clear and anyone who reaches \(address) can submit jobs under --root")
        }
        return security
    }
}
