/// How long a worker may hold an item before a copy goes to another worker: `factor` times
/// what an item of its size takes at the cluster's observed speed, never less than `floor`.
/// Items differ in size (a long file's head goes in items four times the size of its tail's,
/// small files in bundles), so the speed is kept per byte, not per item.
struct ItemDeadline: Sendable, Equatable {
    /// The least a worker is given, whatever the cluster's speed.
    var floor: Duration
    /// How many typical times for its size a holder is given.
    var factor: Int

    /// Smoothed seconds per uncompressed byte, from dispatch to accepted answer; nil until the
    /// first answer of an item of known size.
    private(set) var secondsPerByte: Double?

    /// The most any item is given: a cluster measured as slow as can be still re-dispatches.
    static let ceiling: Duration = .seconds(24 * 3600)

    init(floor: Duration, factor: Int) {
        self.floor = floor
        self.factor = max(1, factor)
    }

    /// The allowance for an item of `bytes` uncompressed bytes (0: unknown, the floor).
    func allowance(bytes: UInt64) -> Duration {
        guard let secondsPerByte, bytes > 0 else { return floor }
        let seconds = secondsPerByte * Double(bytes) * Double(factor)
        guard seconds.isFinite, seconds < Double(Self.ceiling.components.seconds) else { return max(floor, Self.ceiling) }
        return max(floor, .seconds(seconds))
    }

    /// Folds in one accepted item's time and size (an exponentially weighted average, 1/8 per sample).
    mutating func observe(_ elapsed: Duration, bytes: UInt64) {
        guard elapsed >= .zero, bytes > 0 else { return }
        let (seconds, attoseconds) = elapsed.components
        let sample = (Double(seconds) + Double(attoseconds) / 1e18) / Double(bytes)
        secondsPerByte = secondsPerByte.map { $0 + (sample - $0) / 8 } ?? sample
    }
}
