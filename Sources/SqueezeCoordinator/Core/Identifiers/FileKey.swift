/// Identifies a file across jobs.
struct FileKey: Sendable, Hashable {
    /// The job.
    var job: UInt64
    /// The file index within it.
    var file: Int
}
