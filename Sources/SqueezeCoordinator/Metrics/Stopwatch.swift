import CoreMetrics

/// Times one step of the I/O side (a write, an fsync) for a metrics timer.
struct Stopwatch {
    private let began: ContinuousClock.Instant

    /// A stopwatch running from now.
    init() {
        began = EventTime.current().instant
    }

    /// Records the time since it started in `timer`, if there is one.
    func record(in timer: Timer?) {
        guard let timer else { return }
        CoordinatorMetrics.record(EventTime.current().instant - began, in: timer)
    }
}
