import Synchronization

/// When the coordinator was last heard from; written by the I/O thread, read by the
/// liveness check.
final class LastHeard: Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)

    /// Records a message arriving now.
    func mark() {
        instant.withLock { $0 = .now }
    }

    /// The last arrival, or nil when nothing has arrived yet.
    var value: ContinuousClock.Instant? {
        instant.withLock { $0 }
    }
}
