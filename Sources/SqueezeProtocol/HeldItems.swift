/// Items of one job that a worker holds (queued, compressing, or answered while it had no
/// coordinator to answer to), in `workerReady.holding` and `welcome.keep`.
public struct HeldItems: Codable, Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// Its items.
    public var itemIDs: [UInt64]

    /// Creates a list.
    public init(jobID: UInt64, itemIDs: [UInt64]) {
        self.jobID = jobID
        self.itemIDs = itemIDs
    }

    /// `pairs` (job, item) grouped by job, jobs and items in ascending order, duplicates dropped.
    public static func grouped(_ pairs: some Sequence<(job: UInt64, item: UInt64)>) -> [HeldItems] {
        var byJob: [UInt64: Set<UInt64>] = [:]
        for pair in pairs { byJob[pair.job, default: []].insert(pair.item) }
        return byJob.keys.sorted().map { HeldItems(jobID: $0, itemIDs: byJob[$0, default: []].sorted()) }
    }

    /// Every (job, item) pair in `lists`.
    public static func pairs(in lists: [HeldItems]) -> [(job: UInt64, item: UInt64)] {
        lists.flatMap { list in list.itemIDs.map { (job: list.jobID, item: $0) } }
    }

    /// The most items a worker with `slots` slots may say it holds: the most credit a
    /// coordinator gives (64 per slot) plus one compressing in each slot.
    public static func limit(slots: Int) -> Int { slots * 65 }
}
