import SqueezeIO
import SqueezeProtocol

/// What workers' probes said about source roots, so a probe runs once per worker and root
/// rather than once per job: a flood of jobs over one folder, or a worker that registers again,
/// would otherwise probe for every running job. A worker process is known by its id, pid and
/// boot id, so a restarted worker (another pid) is probed afresh; an answer is trusted for
/// `lifetime` (a mount may change). A value with no I/O, bounded to `capacity` answers.
struct StorageMemory: Sendable {
    /// One worker process and one source root.
    struct Key: Hashable, Sendable {
        var workerID: String
        var pid: Int32
        var bootID: String?
        var root: BytePath
        /// The folder the job's destination is made in: the probe also proved the worker writes
        /// there (jobs into sibling destinations, as a flood of submits makes, share an answer).
        var outputs: BytePath
    }

    /// How long an answer stands.
    static let lifetime = Duration.seconds(60)
    /// Most answers kept: past it the oldest go.
    static let capacity = 4096

    /// What a probe found: the worker sees the root (with this view of its stamps), or not (nil).
    private var answers: [Key: (view: SharedView?, at: ContinuousClock.Instant)] = [:]

    /// What a probe of `key` found within `lifetime` of `now`: `.some(view)` when the worker sees
    /// `key.root`, `.some(nil)` when it does not; nil when no probe answered lately.
    func answer(_ key: Key, at now: ContinuousClock.Instant) -> SharedView?? {
        guard let answer = answers[key], now - answer.at <= Self.lifetime else { return nil }
        return .some(answer.view)
    }

    /// A probe of `key` found `view` (nil: not shared) at `now`.
    mutating func record(_ key: Key, view: SharedView?, at now: ContinuousClock.Instant) {
        if answers.count >= Self.capacity, answers[key] == nil {
            answers = answers.filter { now - $0.value.at <= Self.lifetime }
            if answers.count >= Self.capacity, let oldest = answers.min(by: { $0.value.at < $1.value.at })?.key {
                answers.removeValue(forKey: oldest)
            }
        }
        answers[key] = (view, now)
    }

    /// Answers kept (for tests).
    var count: Int { answers.count }
}
