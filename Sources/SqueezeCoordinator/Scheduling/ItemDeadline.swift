/// How long a worker may hold an item before a copy goes to another worker: `factor` times
/// the smoothed time items have taken so far, but never less than `floor`. Items are cut to
/// about one block each, so their times are comparable.
struct ItemDeadline: Sendable, Equatable {
    /// The least a worker is given, whatever the cluster's speed.
    var floor: Duration
    /// How many typical item times a holder is given.
    var factor: Int

    /// Smoothed time from dispatch to accepted answer; nil until the first answer.
    private(set) var typical: Duration?

    init(floor: Duration, factor: Int) {
        self.floor = floor
        self.factor = max(1, factor)
    }

    /// The current allowance.
    var allowance: Duration {
        guard let typical else { return floor }
        return max(floor, typical * factor)
    }

    /// Folds in one accepted item's time (an exponentially weighted average, 1/8 per sample).
    mutating func observe(_ elapsed: Duration) {
        guard elapsed >= .zero else { return }
        typical = typical.map { $0 + (elapsed - $0) / 8 } ?? elapsed
    }
}
