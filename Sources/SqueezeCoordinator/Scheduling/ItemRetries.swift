/// Which workers each item went wrong on (an `itemFailed`, or a result refused), so it is
/// retried on another worker and never bounced back to the same one, and when to give up:
/// once `limit` distinct workers went wrong on it, its files fail.
struct ItemRetries: Sendable {
    /// Distinct workers an item may go wrong on before its files fail.
    let limit: Int
    /// Per item that went wrong at least once: the workers it went wrong on.
    private var tried: [ItemKey: Set<PeerID>] = [:]

    init(limit: Int = 3) {
        self.limit = max(1, limit)
    }

    /// Workers `item` must not go to again (empty for an item that never went wrong).
    func excluded(_ item: ItemKey) -> Set<PeerID> { tried[item] ?? [] }

    /// Whether `item` went wrong before: only such items have workers to avoid.
    func hasExclusions(_ item: ItemKey) -> Bool { tried[item] != nil }

    /// Records that `item` went wrong on `worker`; returns on how many distinct workers it has.
    mutating func record(_ item: ItemKey, on worker: PeerID) -> Int {
        tried[item, default: []].insert(worker)
        return tried[item]?.count ?? 0
    }

    /// Whether `item` has gone wrong on as many workers as it may.
    func isExhausted(_ item: ItemKey) -> Bool { (tried[item]?.count ?? 0) >= limit }

    /// Forgets `item` (it was answered, or given up).
    mutating func forget(_ item: ItemKey) {
        tried.removeValue(forKey: item)
    }

    /// Forgets every item of job `id` (it ended).
    mutating func forget(job id: JobID) {
        guard tried.keys.contains(where: { $0.job == id }) else { return }
        tried = tried.filter { $0.key.job != id }
    }

    /// Items that went wrong somewhere, for finding those no worker is left to try.
    var items: Dictionary<ItemKey, Set<PeerID>>.Keys { tried.keys }
}
