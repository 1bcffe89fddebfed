import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// The coordinator's view of one worker, for liveness and `status`. What it holds and may
/// hold is the scheduler's.
struct WorkerRecord {
    /// ZeroMQ routing id.
    var routingID: PeerID
    /// What it announced.
    var hello: WorkerHello
    /// Who stands behind it, for the choice of who checks its answers.
    var principal: Principal
    /// Last message from it.
    var lastHeard: ContinuousClock.Instant
    /// Last message to it: it gets a heartbeat only after an interval without one.
    var lastSent: ContinuousClock.Instant
    /// Items it completed.
    var itemsDone = 0
    /// (time, bytes) of recent results, for a throughput figure.
    var recent: [(ContinuousClock.Instant, Int)] = []
    /// Per running job: whether it sees the job's files (absent: not probed yet).
    var jobStorage: [JobID: JobStorage] = [:]

    /// The storage mode it announced (remote when it announced none).
    var storage: StorageMode { hello.storage.flatMap(StorageMode.init(rawValue:)) ?? .remote }

    /// Whether the coordinator's `syncfs` covers its writes: it runs on the same kernel.
    var sharesKernel: Bool { hello.bootID != nil && hello.bootID == KernelIdentity.bootID }

    /// Whether items of `job` go to it by reference.
    func isShared(for job: JobID) -> Bool { view(for: job) != nil }

    /// What it sees of job `job`'s stamps when it reads and writes the job's files itself; nil
    /// when it does not.
    func view(for job: JobID) -> SharedView? {
        if case .shared(let view) = jobStorage[job] { return view }
        return nil
    }

    /// The engines it announced that this coordinator knows (zlib when it announced none).
    var engines: Set<CompressionEngine> {
        guard let names = hello.engines else { return [.zlib] }
        return Set(names.prefix(CompressionEngine.allCases.count * 4).compactMap(CompressionEngine.init(rawValue:)))
    }

    /// How far back `recent` reaches.
    static let throughputSpan = Duration.seconds(5)

    /// Uncompressed MB/s over the last `throughputSpan`.
    func megabytesPerSecond(now: ContinuousClock.Instant) -> Double {
        let bytes = recent.filter { now - $0.0 < Self.throughputSpan }.reduce(0) { $0 + $1.1 }
        return Double(bytes) / Self.throughputSpan.seconds / 1_000_000
    }
}
