import SqueezeProtocol

/// The items a worker holds, across its sessions with the coordinator: from when an item
/// arrives until its answer leaves. When the coordinator falls silent the worker goes on
/// compressing and keeps the answers; when it registers again it names what it holds
/// (`workerReady.holding`), and the coordinator's `welcome.keep` says which to finish and
/// answer. So a reconnect costs no work that was fine. Kept under the worker's lock; no I/O.
struct HeldWork: Sendable {
    /// One item, by job and item id.
    struct Key: Hashable, Sendable {
        var job: UInt64
        var item: UInt64
    }

    /// Where a held item is.
    private enum Stage: Sendable {
        case queued
        case compressing
        /// Done while no coordinator was listening: the answer waits for the next `keep`.
        case answered(WireMessage)
    }

    private struct Entry: Sendable {
        /// Which arrival this is: an item sent again (after a reconnect) is a new arrival, and
        /// only the newest one counts.
        var arrival: UInt64
        var stage: Stage
    }

    private var entries: [Key: Entry] = [:]
    private var arrivals: UInt64 = 0

    /// Items held now.
    var count: Int { entries.count }

    /// An item arrives; returns its arrival, which its slot shows to `start` and `finish`.
    mutating func receive(_ key: Key) -> UInt64 {
        arrivals += 1
        entries[key] = Entry(arrival: arrivals, stage: .queued)
        return arrivals
    }

    /// A slot takes the item: false when it was dropped meanwhile (not kept, or sent again).
    mutating func start(_ key: Key, arrival: UInt64) -> Bool {
        guard entries[key]?.arrival == arrival else { return false }
        entries[key]?.stage = .compressing
        return true
    }

    /// The item's answer is ready. Returns what should leave now, on registration `current`
    /// (nil: not registered), and nil when the item was dropped meanwhile or its answer must
    /// wait for the coordinator's `keep`, whole.
    mutating func finish(_ key: Key, arrival: UInt64, answer: ItemAnswer, registration current: UInt64?) -> WireMessage? {
        guard entries[key]?.arrival == arrival else { return nil }
        if let current {
            entries.removeValue(forKey: key)
            return answer.message(on: current)
        }
        entries[key]?.stage = .answered(answer.whole)
        return nil
    }

    /// The item ends without an answer (skipped, or stopped mid-way).
    mutating func drop(_ key: Key, arrival: UInt64) {
        guard entries[key]?.arrival == arrival else { return }
        entries.removeValue(forKey: key)
    }

    /// What to tell the coordinator when registering: every item held, by job.
    var holding: [HeldItems] {
        HeldItems.grouped(entries.keys.lazy.map { (job: $0.job, item: $0.item) })
    }

    /// The coordinator's `keep` (nil: it said nothing, so nothing is kept): drops every other
    /// item and returns the kept answers that waited, to send now.
    mutating func keep(_ lists: [HeldItems]?) -> [WireMessage] {
        let kept = Set(HeldItems.pairs(in: lists ?? []).map { Key(job: $0.job, item: $0.item) })
        entries = entries.filter { kept.contains($0.key) }
        var answers: [(Key, WireMessage)] = []
        for (key, entry) in entries {
            guard case .answered(let answer) = entry.stage else { continue }
            answers.append((key, answer))
            entries.removeValue(forKey: key)
        }
        return answers.sorted { ($0.0.job, $0.0.item) < ($1.0.job, $1.0.item) }.map(\.1)
    }

    /// Whether `key`'s newest arrival is `arrival` (it has not been dropped or sent again).
    func holds(_ key: Key, arrival: UInt64) -> Bool {
        entries[key]?.arrival == arrival
    }
}
