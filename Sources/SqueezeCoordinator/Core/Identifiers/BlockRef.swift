/// One block of one file of a job.
struct BlockRef: Sendable, Hashable {
    /// File index within the job.
    var file: Int
    /// Block index within the file.
    var index: Int
}
