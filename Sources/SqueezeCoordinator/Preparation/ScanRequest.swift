import SqueezeIO

/// A job's next batch to read, for the scanner task: the walk and where the job stands, or a
/// slice of a job scanned in slices.
struct ScanRequest: Sendable {
    var job: JobID
    var walker: DirectoryWalker?
    /// A slice to list instead of the walk's next batch, and the path (relative to the root)
    /// it leaves out.
    var slice: ScanSlice?
    var exclude: BytePath?
    var context: JobPreparer.BatchContext
    /// The index the batch's first file gets.
    var firstIndex: Int
    var lastCreatedFolder: OutputFolder?
}
