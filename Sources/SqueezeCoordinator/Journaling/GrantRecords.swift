import SqueezeJournal

/// Group commit of grants' journal records: one transaction in flight at a time, and every
/// grant that comes meanwhile rides the next one, so a cluster granting faster than the disk
/// syncs pays one `fdatasync` for many grants, not one each. A grant waits at most for the
/// transaction ahead of it.
struct GrantRecords {
    /// Whether a transaction is in flight (its `grantsRecorded` has not come back).
    private(set) var recording = false
    /// Grants waiting for the next transaction, in the order they came.
    private var waiting: [(key: ItemKey, records: [PublishedFile])] = []

    /// How many grants wait for the next transaction.
    var waitingCount: Int { waiting.count }

    /// Grant `key`'s records: the command to send now, or nil when they wait for the
    /// transaction in flight.
    mutating func record(_ key: ItemKey, _ records: [PublishedFile]) -> JournalCommand? {
        guard !recording else {
            waiting.append((key, records))
            return nil
        }
        recording = true
        return .granted([key], records)
    }

    /// The transaction in flight ended: the next one, of the waiting grants `wanted` keeps
    /// (the core leaves out a grant taken over, or whose job was cancelled or failed
    /// meanwhile), or nil when there is none and nothing is in flight any more.
    mutating func recorded(wanted: (ItemKey) -> Bool) -> JournalCommand? {
        let next = waiting.filter { wanted($0.key) }
        waiting = []
        guard !next.isEmpty else {
            recording = false
            return nil
        }
        return .granted(next.map(\.key), next.flatMap(\.records))
    }
}
