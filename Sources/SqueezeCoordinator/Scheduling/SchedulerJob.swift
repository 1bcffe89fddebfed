import DequeModule
import SqueezeGzip

/// One job as the scheduler sees it: which items are left, which are answered, which are
/// written, and how far ahead of the oldest unwritten item dispatch may run.
struct SchedulerJob: Sendable {
    /// The engine its items need.
    let engine: CompressionEngine
    /// Dispatch may run at most this many items ahead of the oldest unwritten one, which
    /// bounds what waits for the writers, however slow the disk.
    let window: Int
    /// Items not yet sent, in plan order.
    var pending: Deque<UInt64>
    /// Items to send again (their worker died or their result was refused); before `pending`.
    var retry = Deque<UInt64>()
    /// Done items: a result was accepted, or nothing was left to send.
    private(set) var done: [Bool]
    /// How many are done.
    private(set) var doneCount = 0
    /// Written items: their blocks are in their outputs (or nothing was left to write).
    private(set) var written: [Bool]
    /// Lowest item id not yet written: the window's base.
    private(set) var lowWater: UInt64 = 0

    init(items: Int, window: Int, engine: CompressionEngine) {
        self.engine = engine
        self.window = max(1, window)
        pending = Deque(0..<UInt64(max(0, items)))
        done = Array(repeating: false, count: max(0, items))
        written = Array(repeating: false, count: max(0, items))
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

    /// Marks an item answered: it is not sent again, and later answers are late.
    mutating func markDone(_ item: UInt64) {
        guard contains(item), !done[Int(item)] else { return }
        done[Int(item)] = true
        doneCount += 1
    }

    /// Marks an item written (implies answered) and advances the window.
    mutating func markWritten(_ item: UInt64) {
        guard contains(item), !written[Int(item)] else { return }
        markDone(item)
        written[Int(item)] = true
        while lowWater < UInt64(written.count) && written[Int(lowWater)] { lowWater += 1 }
    }

    /// Puts an unfinished item at the front of the retries (once).
    mutating func requeue(_ item: UInt64) {
        guard contains(item), !done[Int(item)], !retry.contains(item) else { return }
        retry.prepend(item)
    }
}
