/// Part of a job's trace (`JobRequest.trace`), sent to its client as a `trace` event while the
/// job runs, always before `finished`: workers seen for the first time, attempts that ended,
/// and queue samples. A client appends the chunks in order to get the whole trace.
public struct TraceChunk: Codable, Sendable, Equatable {
    /// The job's id.
    public var jobID: UInt64
    /// Workers not named in an earlier chunk, or whose clock offset is now known.
    public var workers: [TraceWorker]
    /// Attempts that ended since the last chunk.
    public var attempts: [TracedAttempt]
    /// Queue samples since the last chunk.
    public var counters: [TraceCounters]

    /// Creates a chunk.
    public init(jobID: UInt64, workers: [TraceWorker] = [], attempts: [TracedAttempt] = [], counters: [TraceCounters] = []) {
        self.jobID = jobID
        self.workers = workers
        self.attempts = attempts
        self.counters = counters
    }

    /// True when it carries nothing.
    public var isEmpty: Bool { workers.isEmpty && attempts.isEmpty && counters.isEmpty }
}
