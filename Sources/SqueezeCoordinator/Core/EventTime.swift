import Foundation
import SqueezeIO

/// When an event happened, as the coordinator's decisions need it: an instant of the
/// continuous clock (deadlines, intervals), the monotonic clock in microseconds (traces,
/// which workers' clocks are mapped onto) and the wall clock (the journal). Read once per
/// event, by the actor; the core never reads a clock, and the rest of the module reads it
/// only here and in `Stopwatch`.
struct EventTime: Sendable {
    /// The continuous clock's instant.
    var instant: ContinuousClock.Instant
    /// The monotonic clock, in microseconds.
    var micros: Int64
    /// The wall clock (the journal's times).
    var wall: Date

    /// The time now: the one place the coordinator reads its clocks.
    static func current() -> EventTime {
        EventTime(instant: .now, micros: MonotonicClock.micros(), wall: Date())
    }
}
