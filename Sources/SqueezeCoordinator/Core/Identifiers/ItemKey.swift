/// Identifies an item across jobs.
struct ItemKey: Sendable, Hashable {
    /// The job.
    var job: UInt64
    /// The item within it.
    var item: UInt64
}
