import DequeModule
import SqueezeGzip

/// One job as the scheduler sees it: which items are left, which are done, and how far ahead
/// of the oldest unfinished item dispatch may run.
struct SchedulerJob: Sendable {
    /// The engine its items need.
    let engine: CompressionEngine
    /// Dispatch may run at most this many items ahead of the oldest unfinished one, which
    /// bounds the writers' reorder buffers.
    let window: Int
    /// Items not yet sent, in plan order.
    var pending: Deque<UInt64>
    /// Items to send again (their worker died or their result was refused); before `pending`.
    var retry = Deque<UInt64>()
    /// Done items: a result was accepted, or nothing was left to send.
    private(set) var done: [Bool]
    /// How many are done.
    private(set) var doneCount = 0
    /// Lowest item id not yet done.
    private(set) var lowWater: UInt64 = 0

    init(items: Int, window: Int, engine: CompressionEngine) {
        self.engine = engine
        self.window = max(1, window)
        pending = Deque(0..<UInt64(max(0, items)))
        done = Array(repeating: false, count: max(0, items))
    }

    /// Whether `item` is an item of this job.
    func contains(_ item: UInt64) -> Bool { item < UInt64(done.count) }

    /// Whether `item` is done (false for an item the job does not have).
    func isDone(_ item: UInt64) -> Bool { contains(item) && done[Int(item)] }

    /// Whether the next pending item is inside the dispatch window.
    var canDispatchPending: Bool {
        guard let next = pending.first else { return false }
        return next < lowWater &+ UInt64(window)
    }

    /// Whether anything can be sent now.
    var hasDispatchable: Bool { !retry.isEmpty || canDispatchPending }

    /// The next item to send, retries first; nil when nothing is sendable now.
    mutating func takeNext() -> UInt64? {
        while let item = retry.popFirst() {
            if !isDone(item) { return item }
        }
        while canDispatchPending, let item = pending.popFirst() {
            if !isDone(item) { return item }
        }
        return nil
    }

    /// Marks an item done and advances the window.
    mutating func markDone(_ item: UInt64) {
        guard contains(item), !done[Int(item)] else { return }
        done[Int(item)] = true
        doneCount += 1
        while lowWater < UInt64(done.count) && done[Int(lowWater)] { lowWater += 1 }
    }

    /// Puts an unfinished item at the front of the retries (once).
    mutating func requeue(_ item: UInt64) {
        guard contains(item), !done[Int(item)], !retry.contains(item) else { return }
        retry.prepend(item)
    }
}
