/// A planned file not yet finished, with its progress. A job holds these only for its open
/// files: a finished file leaves nothing behind but the job's counters.
struct OpenFile: Sendable {
    /// The plan.
    let plan: PlannedFile
    /// The item holding block 0, and how the planner cut the file into consecutive items
    /// from there: block i is in item `firstItem + shape.item(of: i)`.
    var firstItem: ItemID = 0
    var shape = ItemShape.single
    /// Uncompressed bytes of it counted as done so far.
    var written: UInt64 = 0
    /// A writer joins its pieces: some block came from a remote worker, or no worker could stitch it.
    var joinedByWriter = false
    /// Blocks written in place by shared-storage workers (`stored` files only); nil until the
    /// first such dispatch.
    var placement: Placement?
    /// A writer holds its sealed output, to be published with the writer's next flush.
    var sealed = false
}
