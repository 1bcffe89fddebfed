/// Identifies a file across jobs.
struct FileKey: Sendable, Hashable {
    /// The job.
    var job: JobID
    /// The file index within it.
    var file: Int
}
