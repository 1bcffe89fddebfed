/// One dispatch of one item to one worker, with its phases. Times are microseconds since the
/// job started on the coordinator's clock; worker phases are mapped onto it.
public struct TracedAttempt: Codable, Sendable, Equatable {
    /// The item.
    public var item: UInt64
    /// 1 for the item's first dispatch, 2 for the next (a requeue, a copy past its deadline, a
    /// retry after a refused answer), and so on.
    public var attempt: Int
    /// `TraceWorker.index` of the worker it went to.
    public var worker: Int
    /// How it ended: `written` (its answer won and its blocks are in their outputs),
    /// `late` (another attempt won first), `refused` (its answer failed a check), `failed`
    /// (the worker reported it failed), `requeued` (taken back: the worker left or fell
    /// silent), or `abandoned` (the job ended first).
    public var outcome: String
    /// Blocks in the item.
    public var blocks: Int
    /// Uncompressed bytes in the item.
    public var bytes: Int
    /// When the item was planned and queued.
    public var queuedAt: Int64
    /// When the coordinator handed it out.
    public var dispatchedAt: Int64
    /// The coordinator's read of its bytes (for a remote worker); nil when the worker read them.
    public var readStart: Int64?
    /// End of that read.
    public var readEnd: Int64?
    /// The worker's slot that ran it; nil without a timing from the worker.
    public var slot: Int?
    /// When the worker's slot began it.
    public var workerStart: Int64?
    /// When the worker's slot was done with it.
    public var workerEnd: Int64?
    /// Worker time reading sources (shared storage).
    public var workerReadMicros: Int64?
    /// Worker time compressing.
    public var compressMicros: Int64?
    /// Worker time writing pieces (shared storage).
    public var workerWriteMicros: Int64?
    /// When its answer reached the coordinator.
    public var answeredAt: Int64?
    /// When its answer passed the result check.
    public var verifiedAt: Int64?
    /// When its blocks were in their outputs (the dispatch window moved past it).
    public var writtenAt: Int64?
    /// When it ended without being written (requeued, abandoned, refused, late).
    public var endedAt: Int64?

    /// Creates an attempt just dispatched.
    public init(item: UInt64, attempt: Int, worker: Int, blocks: Int, bytes: Int, queuedAt: Int64, dispatchedAt: Int64) {
        self.item = item
        self.attempt = attempt
        self.worker = worker
        self.outcome = "running"
        self.blocks = blocks
        self.bytes = bytes
        self.queuedAt = queuedAt
        self.dispatchedAt = dispatchedAt
    }
}
