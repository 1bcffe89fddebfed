import SqueezeIO

/// The output folder the scan made last, carried from batch to batch: a folder's files come
/// together in the walk, so they share one `mkdir`; and when the folder did not exist before,
/// no output in it can either, so its files need no check for one (a `stat` each, most of
/// what planning a small file cost). An output that appears anyway is still refused when it
/// is renamed into place (`RENAME_NOREPLACE`).
struct OutputFolder: Sendable, Equatable {
    var path: BytePath
    /// The job made it: nothing in it predates the job.
    var fresh: Bool
}
