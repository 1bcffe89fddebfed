/// Identifies an item across jobs.
struct ItemKey: Sendable, Hashable {
    /// The job.
    var job: JobID
    /// The item within it.
    var item: ItemID
}
