import SqueezeIO

/// An item in the worker's queue, with when it arrived (for its `timing`).
struct ReceivedTask: Sendable {
    /// The item.
    var task: WorkerTask
    /// This host's monotonic clock when it arrived, in microseconds.
    var receivedAt: Int64

    /// An item arriving now.
    init(_ task: WorkerTask) {
        self.task = task
        receivedAt = MonotonicClock.micros()
    }
}
