import CoreMetrics
import Foundation
import SqueezeGzip
import SqueezeProtocol
import SqueezeZMQ

/// How a worker connects and how much it takes on.
public struct WorkerConfiguration: Sendable {
    /// The coordinator's worker endpoint, e.g. `tcp://coordinator:5556` or `inproc://…`.
    public var coordinator: String
    /// Items compressed at once; the coordinator grants credit from it.
    public var slots: Int
    /// Stable id, also the ZeroMQ routing id.
    public var workerID: String
    /// Host name shown by `status`.
    public var host: String
    /// Heartbeat period.
    public var heartbeatInterval: Duration
    /// Missed heartbeat periods after which the coordinator counts as gone.
    public var liveness: Int
    /// How long a draining worker may finish the items it holds before it leaves anyway.
    public var drainGrace: Duration
    /// Where to answer health checks (`squeeze health`), e.g. `tcp://127.0.0.1:5557`; nil for none.
    public var healthEndpoint: String?
    /// The engines it offers; the coordinator sends it only jobs that use one of them.
    public var engines: [CompressionEngine] = CompressionEngine.allCases
    /// Whether it announces the `verify` capability and answers `verify` items (checks of
    /// other workers' blocks, docs/protocol.md "Verification items").
    public var verifies = true
    /// Whether it announces the `publish` capability and renames its accepted whole members
    /// into place itself (docs/protocol.md, "Publishing"); off, the coordinator does.
    public var publishes = true
    /// How it gets at a job's files: probed per job (`auto`), read and written directly
    /// (`shared`), or carried in messages (`remote`).
    public var storage: StorageMode = .auto
    /// How long each item waits before it is read (tests: a slow worker caught holding one).
    public var itemDelayForTesting: Duration?
    /// How long each storage probe waits before it is answered (tests: probes piling up).
    public var probeDelayForTesting: Duration?
    /// How long each `publish` waits before its renames (tests: a worker caught holding a grant).
    public var publishDelayForTesting: Duration?
    /// A file name its scans leave out of their listings and batches (tests: a scanner that
    /// lies by omission); its listing checks still list honestly.
    public var scanOmissionForTesting: [UInt8]?
    /// Whether the whole members it writes of files of several blocks carry an offset table
    /// that lies (its first span one byte longer, the next one shorter) over honest data
    /// (tests: a worker whose members every gzip tool reads, but whose table misleads).
    public var wholeTableLieForTesting = false
    /// CURVE keys for the connection to the coordinator; nil connects without.
    public var curve: CurveClientKeys?
    /// Where the worker's metrics go (`WorkerMetrics`): a Prometheus factory for `--http`;
    /// nil counts nothing.
    public var metricsFactory: (any MetricsFactory)?

    /// A configuration with a fresh random id and the machine's host name.
    public init(
        coordinator: String,
        slots: Int = ProcessInfo.processInfo.activeProcessorCount,
        workerID: String? = nil,
        heartbeatInterval: Duration = .seconds(1),
        liveness: Int = 3,
        drainGrace: Duration = .seconds(5),
        healthEndpoint: String? = nil
    ) {
        self.coordinator = coordinator
        self.slots = max(1, slots)
        let host = ProcessInfo.processInfo.hostName
        self.host = host
        self.workerID = workerID ?? "\(host)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.heartbeatInterval = heartbeatInterval
        self.liveness = max(1, liveness)
        self.drainGrace = drainGrace
        self.healthEndpoint = healthEndpoint
    }
}
