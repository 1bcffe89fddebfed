import SqueezeGzip
import SqueezeIO

/// A regular file of a job: where it comes from, where its `.gz` goes, how it is cut.
struct PlannedFile: Sendable {
    /// Index within the job.
    var index: Int
    /// Path relative to the job's source root ("" components never occur).
    var relativePath: BytePath
    /// Absolute source path.
    var sourcePath: BytePath
    /// Absolute output path (`…/name.gz`).
    var outputPath: BytePath
    /// The scan's stamp; every read is checked against it.
    var stamp: FileStamp
    /// Block boundaries.
    var layout: BlockLayout
}
