/// A rate limit for warnings a peer can repeat at will (malformed messages, late or refused
/// answers, refused registrations): the first occurrence of each kind is logged, later ones
/// within `interval` of the last line are only counted, and one summary line per interval
/// says how many were not logged. So a flood costs a few lines, not one per message.
///
/// Kinds are a fixed set of names chosen by the code, never text from a peer, so the table
/// stays small. Time is passed in, so the policy is tested without a clock.
struct WarningThrottle: Sendable {
    /// Least time between two lines of one kind.
    let interval: Duration

    private struct Kind: Sendable {
        var lastLine: ContinuousClock.Instant
        var unlogged: Int
    }

    private var kinds: [String: Kind] = [:]

    init(interval: Duration) {
        self.interval = interval
    }

    /// An occurrence of `kind` at `now`: nil when it is only counted; otherwise log it, with
    /// the returned number of occurrences since the last line that were not logged.
    mutating func admit(_ kind: String, now: ContinuousClock.Instant) -> Int? {
        guard var state = kinds[kind] else {
            kinds[kind] = Kind(lastLine: now, unlogged: 0)
            return 0
        }
        guard now - state.lastLine >= interval else {
            state.unlogged += 1
            kinds[kind] = state
            return nil
        }
        kinds[kind] = Kind(lastLine: now, unlogged: 0)
        return state.unlogged
    }

    /// Kinds with occurrences not logged whose interval has passed since their last line, and
    /// how many: one summary line each is due (and counts as their last line). Kinds quiet for
    /// an interval are forgotten, so the next occurrence is logged at once again.
    mutating func due(now: ContinuousClock.Instant) -> [(kind: String, count: Int)] {
        var lines: [(kind: String, count: Int)] = []
        for (kind, state) in kinds where state.unlogged > 0 && now - state.lastLine >= interval {
            lines.append((kind, state.unlogged))
            kinds[kind] = Kind(lastLine: now, unlogged: 0)
        }
        kinds = kinds.filter { $0.value.unlogged > 0 || now - $0.value.lastLine < interval }
        return lines.sorted { $0.kind < $1.kind }
    }
}
