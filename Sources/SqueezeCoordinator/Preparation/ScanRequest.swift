import SqueezeIO

/// A job's next batch to read, for the scanner task: the walk and where the job stands.
struct ScanRequest: Sendable {
    var job: JobID
    var walker: DirectoryWalker
    var context: JobPreparer.BatchContext
    /// The index the batch's first file gets.
    var firstIndex: Int
    var lastCreatedFolder: OutputFolder?
}
