/// When an endpoint's I/O thread puts a `.tick` among its events: due `interval` after the
/// last one, and put in on the first wake from then on, so while messages flow a tick rides
/// with them; the poll waits at most `slack` beyond that for a wake of its own. Measured from
/// the last tick rather than on a fixed grid, so a thread that wakes late ticks once, not once
/// per interval it missed.
struct EndpointClock {
    /// Least time between ticks (at least a millisecond: the poll's resolution).
    let interval: Duration
    /// Most time a due tick waits for a wake that would come anyway.
    let slack: Duration
    /// When the next tick is due.
    private(set) var due: ContinuousClock.Instant

    init(interval: Duration, slack: Duration, start: ContinuousClock.Instant = .now) {
        self.interval = max(interval, .milliseconds(1))
        self.slack = max(slack, .zero)
        due = start + self.interval
    }

    /// When the poll must wake for the tick at the latest.
    var deadline: ContinuousClock.Instant { due + slack }

    /// Whether a tick is due at `now`; if so, the next is due an interval later.
    mutating func isDue(at now: ContinuousClock.Instant) -> Bool {
        guard now >= due else { return false }
        due = now + interval
        return true
    }
}
