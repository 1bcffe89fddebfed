import DequeModule
import SqueezeGzip

/// One job as the scheduler sees it: which items are left, which are answered, which are
/// written, and how far ahead of the oldest unwritten item dispatch may run. Items arrive as
/// the scan plans them (ids consecutive from 0); what is kept per item covers only those from
/// the oldest unwritten one on, so a job of a million files holds no table of them all.
struct SchedulerJob: Sendable {
    /// The engine its items need.
    let engine: CompressionEngine
    /// Dispatch may run at most this many items ahead of the oldest unwritten one, which
    /// bounds what waits for the writers, however slow the disk.
    private(set) var window: Int
    /// Items not yet sent, in plan order.
    var pending: Deque<ItemID>
    /// Items not yet sent that go before `pending` when the window allows (scans, which find
    /// the rest of the work), in plan order. Kept apart, so one beyond the window never holds
    /// back the items before it.
    var urgent = Deque<ItemID>()
    /// Items to send again (their worker died or their result was refused); before `pending`.
    var retry = Deque<ItemID>()
    /// Items planned so far: ids `0..<planned`.
    private(set) var planned: ItemID = 0
    /// For items `lowWater..<planned`: `answered`, `writtenFlag` and `relayedFlag` bits.
    private var flags = Deque<UInt8>()
    /// For the same items: their uncompressed bytes (0 when not given), for their deadlines.
    private var sizes = Deque<UInt64>()
    /// How many are done.
    private(set) var doneCount = 0
    /// Lowest item id not yet written: the window's base.
    private(set) var lowWater: ItemID = 0
    /// Uncompressed bytes of the items charged to the relay budget (sent in a message to some
    /// worker) and not yet written.
    private(set) var relayedBytes: UInt64 = 0

    private static let answered: UInt8 = 1
    private static let writtenFlag: UInt8 = 2
    private static let relayedFlag: UInt8 = 4

    init(items: Int, window: Int, engine: CompressionEngine) {
        self.engine = engine
        self.window = max(1, window)
        pending = []
        add(items: items)
    }

    /// Appends `count` newly planned items (the next ids), of `bytes` each in order (missing
    /// sizes are unknown); the first `urgent` of them go before every item waiting (scans,
    /// which find the rest of the work).
    mutating func add(items count: Int, bytes: [UInt64] = [], urgent: Int = 0) {
        guard count > 0 else { return }
        let first = min(max(0, urgent), count)
        self.urgent.append(contentsOf: planned..<planned.advanced(by: first))
        pending.append(contentsOf: planned.advanced(by: first)..<planned.advanced(by: count))
        flags.append(contentsOf: repeatElement(0, count: count))
        sizes.append(contentsOf: (0..<count).lazy.map { $0 < bytes.count ? bytes[$0] : 0 })
        planned = planned.advanced(by: count)
    }

    /// The uncompressed bytes of `item`, when given and it is not yet written; else 0.
    func bytes(of item: ItemID) -> UInt64 {
        guard contains(item), item >= lowWater else { return 0 }
        return sizes[lowWater.distance(to: item)]
    }

    /// Sets the window (it may shrink as larger items are planned: items already out stay out).
    mutating func setWindow(_ window: Int) {
        self.window = max(1, window)
    }

    /// Whether `item` is an item of this job.
    func contains(_ item: ItemID) -> Bool { item < planned }

    /// Whether `item` is done (false for an item the job does not have).
    func isDone(_ item: ItemID) -> Bool {
        guard contains(item) else { return false }
        return item < lowWater || flags[lowWater.distance(to: item)] & Self.answered != 0
    }

    /// Whether every planned item is written.
    var allWritten: Bool { lowWater == planned }

    /// Whether the next urgent or pending item is inside the dispatch window.
    var canDispatchPending: Bool {
        let limit = lowWater.advanced(by: window)
        return (urgent.first.map { $0 < limit } ?? false) || (pending.first.map { $0 < limit } ?? false)
    }

    /// The next item never sent, within the window, left in the queue (items answered meanwhile
    /// are dropped): an urgent one first; nil when there is none.
    mutating func peekPending() -> ItemID? {
        let limit = lowWater.advanced(by: window)
        while let item = urgent.first, item < limit {
            if !isDone(item) { return item }
            urgent.removeFirst()
        }
        while let item = pending.first, item < limit {
            if !isDone(item) { return item }
            pending.removeFirst()
        }
        return nil
    }

    /// Whether `item` is charged to the relay budget.
    func isRelayed(_ item: ItemID) -> Bool {
        contains(item) && item >= lowWater && flags[lowWater.distance(to: item)] & Self.relayedFlag != 0
    }

    /// Charges `item` to the relay budget (once): it is going to a worker in a message, and its
    /// bytes may wait here until it is written.
    mutating func chargeRelay(_ item: ItemID) {
        guard contains(item), item >= lowWater, !isRelayed(item) else { return }
        let index = lowWater.distance(to: item)
        flags[index] |= Self.relayedFlag
        relayedBytes += sizes[index]
    }

    /// Items waiting to be sent: never sent, or to send again.
    var queuedCount: Int { urgent.count + pending.count + retry.count }

    /// Whether anything can be sent now.
    var hasDispatchable: Bool { !retry.isEmpty || canDispatchPending }

    /// The next item never sent, within the window, taken out of the queue; nil when there is none.
    mutating func takePending() -> ItemID? {
        guard let item = peekPending() else { return nil }
        if urgent.first == item { urgent.removeFirst() } else { pending.removeFirst() }
        return item
    }

    /// Drops retries answered meanwhile (by another copy).
    mutating func pruneRetries() {
        guard retry.contains(where: isDone) else { return }
        retry.removeAll(where: isDone)
    }

    /// Takes `item` out of the retries (it is being sent, or given up).
    mutating func removeRetry(_ item: ItemID) {
        guard let index = retry.firstIndex(of: item) else { return }
        retry.remove(at: index)
    }

    /// Marks an item answered: it is not sent again, and later answers are late.
    mutating func markDone(_ item: ItemID) {
        guard contains(item), !isDone(item) else { return }
        flags[lowWater.distance(to: item)] |= Self.answered
        doneCount += 1
    }

    /// Takes back an answer that was refused after it counted (it failed verification): the
    /// item is unanswered again, until it is written.
    mutating func reopen(_ item: ItemID) {
        guard contains(item), item >= lowWater, flags[lowWater.distance(to: item)] & Self.writtenFlag == 0,
              flags[lowWater.distance(to: item)] & Self.answered != 0 else { return }
        flags[lowWater.distance(to: item)] &= ~Self.answered
        doneCount -= 1
    }

    /// Marks an item written (implies answered), releases its relay charge and advances the window.
    mutating func markWritten(_ item: ItemID) {
        guard contains(item), item >= lowWater else { return }
        markDone(item)
        let index = lowWater.distance(to: item)
        if flags[index] & Self.relayedFlag != 0 {
            flags[index] &= ~Self.relayedFlag
            relayedBytes -= sizes[index]
        }
        flags[index] |= Self.writtenFlag
        while let first = flags.first, first & Self.writtenFlag != 0 {
            flags.removeFirst()
            sizes.removeFirst()
            lowWater = lowWater.advanced(by: 1)
        }
    }

    /// Puts an unfinished item at the front of the retries (once).
    mutating func requeue(_ item: ItemID) {
        guard contains(item), !isDone(item), !retry.contains(item) else { return }
        retry.prepend(item)
    }
}
