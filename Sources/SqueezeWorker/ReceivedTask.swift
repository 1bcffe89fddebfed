import SqueezeIO

/// An item in the worker's queue, with when it arrived (for its `timing`).
struct ReceivedTask: Sendable {
    /// The item.
    var task: WorkerTask
    /// This host's monotonic clock when it arrived, in microseconds.
    var receivedAt: Int64
    /// Its arrival in the worker's `HeldWork`.
    var arrival: UInt64

    /// An item arriving now.
    init(_ task: WorkerTask, arrival: UInt64) {
        self.task = task
        self.arrival = arrival
        receivedAt = MonotonicClock.micros()
    }

    /// Its key in the worker's `HeldWork`.
    var key: HeldWork.Key { HeldWork.Key(job: task.jobID, item: task.itemID) }
}
