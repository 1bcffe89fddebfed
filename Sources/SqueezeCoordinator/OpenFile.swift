/// A planned file not yet finished, with its progress. A job holds these only for its open
/// files: a finished file leaves nothing behind but the job's counters.
struct OpenFile: Sendable {
    /// The plan.
    let plan: PlannedFile
    /// The item holding block 0, and how many blocks each of its items holds: block i is in
    /// item `firstItem + i / itemSpan` (the planner gives a multi-block file consecutive items
    /// of equal span, the last possibly shorter).
    var firstItem: UInt64 = 0
    var itemSpan: UInt32 = 1
    /// Uncompressed bytes of it counted as done so far.
    var written: UInt64 = 0
    /// A writer joins its pieces: some block came from a remote worker, or no worker could stitch it.
    var joinedByWriter = false
    /// Blocks written in place by shared-storage workers (`stored` files only); nil until the
    /// first such dispatch.
    var placement: Placement?
}
