/// The answer to `statusRequest`.
public struct ClusterStatus: Codable, Sendable, Equatable {
    /// Connected workers.
    public var workers: [WorkerStatus]
    /// Running and recently finished jobs.
    public var jobs: [JobStatus]
    /// Results dropped because their item was already done or their job had ended (late
    /// duplicates, for example from a worker that was declared dead and came back).
    public var lateResults: Int
    /// Malformed or unexpected messages dropped since the coordinator started.
    public var malformedMessages: Int
    /// CPU seconds (user and system, all threads) the coordinator process has used since it
    /// started, to the microsecond: what it costs per byte is read from two of these. Nil from
    /// coordinators before it.
    public var coordinatorCPUSeconds: Double?
    /// Public keys in the coordinator's allow-list; nil when it runs without CURVE.
    public var authorizedKeys: Int?
    /// Connections the allow-list refused since the coordinator started; nil without CURVE.
    public var refusedConnections: Int?
    /// Worker answers refused by the result check since the coordinator started; nil from
    /// coordinators before it.
    public var refusedResults: Int?
    /// Whether the coordinator checks results (false with `--no-verify`); nil from
    /// coordinators before the check.
    public var resultsChecked: Bool?
    /// Answers sent to another worker for their check since start; nil from coordinators
    /// before verification items.
    public var checksByWorkers: Int?
    /// Answers the coordinator checked itself since start (no other worker could, a verifier
    /// was late, contested, or audited); nil from coordinators before verification items.
    public var checksByCoordinator: Int?
    /// Of those, answers the coordinator checked because every able worker shares a principal
    /// (CURVE key, or address without keys) with the worker that compressed them: its check
    /// costs grow only then. Nil from coordinators before principals.
    public var checksForIndependence: Int?
    /// Good verdicts audited again by a third principal, and by the coordinator, since start;
    /// nil from coordinators before principals.
    public var auditsByWorkers: Int?
    public var auditsByCoordinator: Int?
    /// Audits that found a verifier had called a bad answer good (both workers quarantined),
    /// since start; nil from coordinators before principals.
    public var collusionsCaught: Int?
    /// Published outputs the coordinator checked again after a caught collusion, and wrote
    /// again because they differed from their sources, since start; nil from coordinators
    /// before principals.
    public var outputsRechecked: Int?
    public var outputsRedone: Int?
    /// Stitched segments read back for their check by another worker, and by the coordinator
    /// itself, since start; nil from coordinators before stitches were checked.
    public var stitchChecksByWorkers: Int?
    public var stitchChecksByCoordinator: Int?
    /// Stitches given up because a segment held other bytes than its pieces, since start.
    public var refusedStitches: Int?
    /// Batches published whole (one `batch`, `verifyBatch` and `publish` each), and batches
    /// expanded into bundles handled file by file, since start; nil from coordinators before batches.
    public var batchesPublished: Int?
    public var batchesExpanded: Int?

    /// Creates a status.
    public init(
        workers: [WorkerStatus], jobs: [JobStatus], lateResults: Int = 0, malformedMessages: Int = 0, coordinatorCPUSeconds: Double? = nil
    ) {
        self.workers = workers
        self.jobs = jobs
        self.lateResults = lateResults
        self.malformedMessages = malformedMessages
        self.coordinatorCPUSeconds = coordinatorCPUSeconds
    }
}
