import CoreMetrics
import Foundation
import Logging
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ
@testable import SqueezeCoordinator

/// A coordinator core driven by hand: events at instants the test chooses, effects looked at
/// as values. No sockets, no tasks, no clock.
struct CoreHarness {
    var core: CoordinatorCore
    /// The instant the test started at; `at` offsets count from here.
    let start: ContinuousClock.Instant
    /// The job folders this harness made (removed by `cleanUp`).
    private(set) var folders: [String] = []
    /// The folder of the last job started (its source is `src` in it).
    private(set) var lastFolder = ""

    /// A running core (with `writers` writer partitions) at `start`, with `configuration`.
    init(
        _ configuration: CoordinatorConfiguration = CoreHarness.configuration(), writers: Int = 2,
        rolls: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        start = .now
        core = CoordinatorCore(
            configuration: configuration, logger: Logger(label: "core-test"),
            metrics: CoordinatorMetrics(factory: metrics), at: EventTime(instant: start, micros: 0, wall: Date(timeIntervalSince1970: 1_800_000_000)),
            rolls: rolls)
        core.start(writers: writers)
    }

    /// Small blocks and items, so a few small files make a few items; 1 s heartbeats, liveness 3.
    static func configuration() -> CoordinatorConfiguration {
        var configuration = CoordinatorConfiguration(blockSize: 4096, itemBytes: 4096, heartbeatInterval: .seconds(1), liveness: 3)
        configuration.creditPerSlot = 2
        return configuration
    }

    /// The time `offset` after the start.
    func time(_ offset: Duration) -> EventTime {
        EventTime(instant: start + offset, micros: offset.components.seconds * 1_000_000 + offset.components.attoseconds / 1_000_000_000_000,
                  wall: Date(timeIntervalSince1970: 1_800_000_000 + offset.seconds))
    }

    /// Takes `event` at `offset` and returns what the core decided.
    @discardableResult
    mutating func handle(_ event: CoordinatorEvent, at offset: Duration) -> [CoordinatorEffect] {
        core.handle(event, at: time(offset))
        return core.takeEffects()
    }

    /// `peer` registers with `slots` slots and storage `storage` at `offset`.
    @discardableResult
    mutating func register(
        _ peer: PeerID, slots: Int = 1, storage: StorageMode = .remote, capabilities: [String]? = nil, pid: Int32 = 1, at offset: Duration = .zero
    ) -> [CoordinatorEffect] {
        let hello = WorkerHello(
            workerID: String(decoding: peer.bytes, as: UTF8.self), host: "test", slots: slots, pid: pid,
            engines: CompressionEngine.allCases.map(\.rawValue), storage: storage, capabilities: capabilities)
        return handle(.workerMessage(.workerReady(hello), from: peer, origin: Self.origin(of: peer)), at: offset)
    }

    /// A connection of its own for `peer`: workers of the harness are independent principals
    /// unless a test says otherwise.
    static func origin(of peer: PeerID) -> ConnectionOrigin {
        ConnectionOrigin(address: "10.0.0.\(peer.description)")
    }

    /// Starts a job over files of `sizes` bytes at `offset` (scanned for real, in a folder of
    /// its own, or over the source of job `again` started in `folder`, into an output of its
    /// own unless `sameDestination`); returns its id and what the core decided.
    mutating func startJob(
        sizes: [Int], verify: Bool = false, owner: PeerID? = nil, heartbeatMilliseconds: Int? = nil, trace: Bool = false, fileEvents: Bool = false,
        sameSourceAs again: String? = nil, sameDestination: Bool = false, batches: Bool = false, sliced: Bool = false, at offset: Duration = .zero,
        arrange: (String) throws -> Void = { _ in }
    ) throws -> (JobID, [CoordinatorEffect]) {
        let folder = again ?? FileManager.default.temporaryDirectory.appendingPathComponent("core-\(UInt64.random(in: 1...UInt64.max))").path
        let source = folder + "/src"
        if again == nil {
            folders.append(folder)
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            for (index, size) in sizes.enumerated() {
                let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
                try Data(bytes).write(to: URL(fileURLWithPath: source + "/f\(index)"))
            }
            try arrange(source)
        }
        lastFolder = folder
        let destination = again == nil || sameDestination ? folder + "/out" : folder + "/out-\(UInt64.random(in: 1...UInt64.max))"
        var request = JobRequest(source: source, destination: destination, level: 6, force: false, heartbeatMilliseconds: heartbeatMilliseconds)
        request.verify = verify
        request.trace = trace ? true : nil
        request.fileEvents = fileEvents ? true : nil
        let configuration = core.configuration
        let prepared = try JobPreparer.prepare(
            request, blockSize: configuration.blockSize, batchFiles: configuration.scanBatchFiles, root: nil, sliced: sliced)
        let id = core.takeJobID(resuming: nil)
        let job = JobRecord(
            id: id, request: request, setting: try JobRequestRules.setting(for: request), prepared: prepared,
            planner: Planner(blockSize: configuration.blockSize, itemBytes: configuration.itemBytes, batches: batches || sliced), earlier: nil, owner: owner,
            at: time(offset).instant, submittedAt: Date())
        core.advance(to: time(offset))
        core.start(job, client: owner ?? PeerID([]), first: prepared.firstBatch, resumedWith: nil)
        return (id, core.takeEffects())
    }

    /// One job of one small file whose item worker `a` holds, with `b` registered after it
    /// went out: what a test of how an answer is judged starts from.
    mutating func oneItemHeldByA() throws -> Dispatch {
        register(a)
        let (_, started) = try startJob(sizes: [4096])
        guard let item = started.dispatches.first else { throw CoordinatorError("no item went out") }
        register(b, at: .milliseconds(1))
        return item
    }

    /// A worker's answer to `dispatch`: every block as long as planned.
    static func answer(_ dispatch: Dispatch, lengthening: Int = 0) -> WireMessage {
        .result(WorkResult(jobID: dispatch.job.value, itemID: dispatch.item.value, blocks: dispatch.blocks.map { block in
            ResultBlock(crc: 0, rawLength: block.readRange.count - block.dictionaryLength + lengthening, bytes: ZMQFrame([3, 0]))
        }))
    }

    /// Removes the folders its jobs used.
    func cleanUp() {
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
    }
}

extension Array where Element == CoordinatorEffect {
    /// The items that went to readers for remote workers.
    var dispatches: [Dispatch] {
        compactMap { if case .dispatch(let dispatch) = $0 { dispatch } else { nil } }
    }

    /// The messages sent, with their peers.
    var sent: [(message: WireMessage, peer: PeerID)] {
        compactMap { if case .send(let message, let peer) = $0 { (message, peer) } else { nil } }
    }

    /// The writer commands, with their partitions.
    var writes: [(command: WriterCommand, partition: Int)] {
        compactMap { if case .write(let command, let partition) = $0 { (command, partition) } else { nil } }
    }

    /// The events for job `id`'s clients.
    func events(of id: JobID) -> [JobEvent] {
        compactMap { if case .jobEvent(let event, let job) = $0, job == id { event } else { nil } }
    }

    /// The summary in job `id`'s `finished` event, if one went out.
    func finished(_ id: JobID) -> JobSummary? {
        for event in events(of: id) { if case .finished(let summary) = event { return summary } }
        return nil
    }
}

/// Draws that are always `value`: 0 makes every good verdict an audit.
struct FixedRolls: RandomNumberGenerator, Sendable {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}
