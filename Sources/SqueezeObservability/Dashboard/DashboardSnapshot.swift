import SqueezeProtocol

/// What the live page shows, as `GET /api/status` returns it and `GET /api/events` streams it.
public struct DashboardSnapshot: Codable, Sendable, Equatable {
    /// The coordinator's version.
    public var version: String
    /// When it was taken, in seconds since 1970.
    public var generatedAt: Double
    /// Seconds since the coordinator started.
    public var uptimeSeconds: Double
    /// Totals.
    public var cluster: DashboardCluster
    /// Connected workers, by id.
    public var workers: [WorkerStatus]
    /// Running jobs, then recent ended ones.
    public var jobs: [DashboardJob]
    /// Cluster throughput, oldest first.
    public var throughput: [ThroughputSample]
}
