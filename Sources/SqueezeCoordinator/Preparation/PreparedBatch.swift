import SqueezeIO
import SqueezeProtocol

/// Files one step of a job's scan found, planned: numbered, their output folders made.
struct PreparedBatch: Sendable {
    var files: [PlannedFile] = []
    var skipped: [EntryNote] = []
    /// Files refused before any work: unreadable entries, outputs that exist without --force.
    var failed: [EntryNote] = []
    /// The last output folder made, carried to the next batch.
    var lastCreatedFolder: OutputFolder?
    /// Files a resumed job published before the restart and keeps as they are.
    var kept: [KeptFile] = []
    /// Whether the walk is over.
    var finished = false
    /// For a job scanned in slices: the slices this one found (its subdirectories, and the
    /// rest of its directory), each to become a scan item.
    var slices: [ScanSlice] = []
    /// It is a slice the coordinator listed (a scan item it took back), not a batch of the walk.
    var fromSlice = false
    /// For a range a worker's listing claimed (`ListingGap`): the entries found there that the
    /// listing did not name (files, subdirectories, notes).
    var leftOut = 0
}
