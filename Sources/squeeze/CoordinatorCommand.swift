import ArgumentParser
import Foundation
import Logging
import SqueezeCoordinator
import SqueezeZMQ

/// `squeeze coordinator`: the long-running service clients submit jobs to and workers
/// connect to.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Run the coordinator: accept jobs from clients and hand their blocks to workers.",
        discussion: "SIGTERM or SIGINT stops it: running jobs fail cleanly, their clients are told, and it exits 0."
    )

    @Option(help: "Client endpoint (submit, status).")
    var listen = "tcp://0.0.0.0:5555"

    @Option(help: "Worker endpoint.")
    var workersListen = "tcp://0.0.0.0:5556"

    @Option(help: "Serve only paths under this folder; relative job paths are taken against it.")
    var root: String?

    @Option(help: "Default block size, e.g. 512K or 1M.")
    var blockSize: ByteSize?

    @Option(help: "Bytes a work item of a large file aims for (consecutive blocks go together), e.g. 4M.")
    var itemSize: ByteSize?

    @Option(help: "Compressed bytes of a file's pieces a shared-storage worker joins per stitch segment, e.g. 16M.")
    var stitchSegment: ByteSize?

    @Option(help: "Heartbeat period, both ways, e.g. 1s or 250ms.")
    var heartbeat: Interval?

    @Option(help: "Silent heartbeat periods after which a worker or client counts as gone.")
    var liveness = 3

    @Option(help: "Threads for disk reads, writes and fsync.")
    var ioThreads = 4

    @Option(help: "Least time a worker may hold an item before a copy goes to another worker, e.g. 30s (it gets ten typical item times if that is longer).")
    var itemDeadline: Interval?

    @Option(help: .hidden)
    var testWriteDelay: Interval?

    func validate() throws {
        guard liveness >= 1 else { throw ValidationError("--liveness must be at least 1") }
        guard ioThreads >= 1 else { throw ValidationError("--io-threads must be at least 1") }
        for (name, size) in [("--item-size", itemSize), ("--stitch-segment", stitchSegment)] {
            if let size, !(4096...(1 << 30)).contains(size.bytes) { throw ValidationError("\(name) must be between 4K and 1G") }
        }
    }

    func run() async throws {
        LogSetup.bootstrap(defaultLevel: .info)
        let logger = Logger(label: "squeeze.coordinator")
        var settings = CoordinatorConfiguration()
        if let blockSize { settings.blockSize = blockSize.bytes }
        if let itemSize { settings.itemBytes = itemSize.bytes }
        if let stitchSegment { settings.stitchSegmentBytes = stitchSegment.bytes }
        if let heartbeat { settings.heartbeatInterval = heartbeat.duration }
        settings.liveness = liveness
        settings.ioThreads = ioThreads
        if let itemDeadline { settings.itemDeadline = itemDeadline.duration }
        settings.root = root
        settings.writeDelayForTesting = testWriteDelay?.duration
        try await ZMQRuntime.run { context in
            let coordinator = Coordinator(configuration: settings, context: context, logger: logger)
            let service = CoordinatorService(
                coordinator: coordinator, workerEndpoints: [workersListen], clientEndpoints: [listen]
            ) { bound in
                // One stable line on stdout, so scripts (and tests binding port *) learn the ports.
                let line = "squeeze coordinator: listening clients=\(bound.clients.joined(separator: ",")) workers=\(bound.workers.joined(separator: ","))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
                logger.info("listening", metadata: ["clients": "\(bound.clients)", "workers": "\(bound.workers)", "root": "\(root ?? "-")"])
            }
            do {
                try await ServiceRunner.run(service, grace: .seconds(10), logger: logger)
            } catch {
                FileHandle.standardError.write(Data("squeeze: \(error)\n".utf8))
                throw ExitCode(1)
            }
            logger.info("stopped")
        }
    }
}
