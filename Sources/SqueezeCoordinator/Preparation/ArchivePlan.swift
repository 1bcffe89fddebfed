import SqueezeArchive
import SqueezeIO

/// A `--tar` job's archive: the tree laid out as one tar stream, compressed as the job's one
/// file, and the `.tar.gz` it becomes.
struct ArchivePlan: Sendable {
    /// The stream: any range of it can be read, by any reader thread.
    var layout: TarLayout
    /// The archive's path (canonical folder, then its name).
    var path: BytePath
}
