import SqueezeIO

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
    }

    /// How long an answer stands.
    static let lifetime = Duration.seconds(60)
    /// Most answers kept: past it the oldest go.
    static let capacity = 4096

    private var answers: [Key: (shared: Bool, at: ContinuousClock.Instant)] = [:]

    /// Whether the worker of `key` sees `key.root`, when a probe said so within `lifetime` of `now`.
    func shared(_ key: Key, at now: ContinuousClock.Instant) -> Bool? {
        guard let answer = answers[key], now - answer.at <= Self.lifetime else { return nil }
        return answer.shared
    }

    /// A probe of `key` answered `shared` at `now`.
    mutating func record(_ key: Key, shared: Bool, at now: ContinuousClock.Instant) {
        if answers.count >= Self.capacity, answers[key] == nil {
            answers = answers.filter { now - $0.value.at <= Self.lifetime }
            if answers.count >= Self.capacity, let oldest = answers.min(by: { $0.value.at < $1.value.at })?.key {
                answers.removeValue(forKey: oldest)
            }
        }
        answers[key] = (shared, now)
    }

    /// Answers kept (for tests).
    var count: Int { answers.count }
}
