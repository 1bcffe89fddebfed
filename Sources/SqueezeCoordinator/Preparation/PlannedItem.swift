/// A unit of work handed to one worker: one block of a large file, or several small files.
struct PlannedItem: Sendable {
    /// Unique within the job.
    var id: ItemID
    /// The blocks, in file order.
    var blocks: [BlockRef]
    /// Uncompressed bytes in the item.
    var bytes: Int
    /// For a batch (`Planner.batches`): its one-block files, in position order, held here and
    /// not among the job's open files; `blocks` is empty until the batch is expanded into an
    /// ordinary bundle (`CoordinatorCore.expandBatch`).
    var files: [PlannedFile]?
}
