/// The answer to `statusRequest`.
public struct ClusterStatus: Codable, Sendable, Equatable {
    /// Connected workers.
    public var workers: [WorkerStatus]
    /// Running and recently finished jobs.
    public var jobs: [JobStatus]

    /// Creates a status.
    public init(workers: [WorkerStatus], jobs: [JobStatus]) {
        self.workers = workers
        self.jobs = jobs
    }
}
