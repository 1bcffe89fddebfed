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
    /// For a scan item of a job scanned in slices: the slice to list. A worker that takes
    /// scans lists it and compresses its one-block files, after which the item is a batch of
    /// them (`CoordinatorCore.scannedByWorker`); anyone else has the coordinator list it.
    var scan: ScanSlice?
}
