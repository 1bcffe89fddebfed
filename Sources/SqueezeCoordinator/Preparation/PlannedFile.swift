import SqueezeGzip
import SqueezeIO

/// A regular file of a job: which it is, what the scan saw, how it is cut. Its absolute source
/// and output paths are the job's roots joined with `relativePath`, made when needed rather
/// than held for every file.
struct PlannedFile: Sendable {
    /// Index within the job, in scan order.
    var index: Int
    /// Path relative to the job's source root ("" components never occur).
    var relativePath: BytePath
    /// The scan's stamp; every read is checked against it.
    var stamp: FileStamp
    /// Block boundaries.
    var layout: BlockLayout
    /// A resumed job published this file before, and its source changed since: the new
    /// output replaces the job's own earlier one (whatever `force` says).
    var replacesOwnOutput = false
}
