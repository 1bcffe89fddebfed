import SqueezeIO

/// Where a slot's time on one item went, for its `timing` message: reading sources,
/// compressing, writing pieces. Summed over the item's blocks.
struct ItemPhases: Sendable {
    /// Microseconds reading sources (shared storage).
    var readMicros: Int64 = 0
    /// Microseconds compressing.
    var compressMicros: Int64 = 0
    /// Microseconds writing pieces or blocks in place.
    var writeMicros: Int64 = 0

    /// Runs `body`, adding its time to the phase at `phase`.
    mutating func time<T>(_ phase: WritableKeyPath<ItemPhases, Int64>, _ body: () throws -> T) rethrows -> T {
        let start = MonotonicClock.micros()
        defer { self[keyPath: phase] += MonotonicClock.micros() - start }
        return try body()
    }
}
