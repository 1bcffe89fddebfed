import SqueezeIO
import SqueezeProtocol

/// A validated job with its destination made, ready to start: its first batch of files is
/// read, the rest of its tree (if any) is left to `walker`.
struct PreparedJob: Sendable {
    var sourceDisplay: String
    /// The folder relative paths start from (the source, or a single file's folder).
    var sourceRoot: BytePath
    var destination: BytePath
    /// The rest of the walk; nil for a single file.
    var walker: DirectoryWalker?
    /// The job is scanned in slices (`ScanSlice`), not walked: `walker` is nil and the first
    /// batch names the root's subdirectories and the rest of the root as slices.
    var sliced = false
    /// The source root's device: what files listed by workers, who see other device numbers,
    /// are stamped with (a worker lists only directories on the root's file system).
    var rootDevice: UInt64 = 0
    /// What the walk leaves out (the destination, when it is inside the source), or, for a
    /// job of one file, that file relative to `sourceRoot`: how the job's files are found again.
    var walkExclude: BytePath?
    var singleFile: BytePath?
    var firstBatch: PreparedBatch
    /// The job's private folder in the destination: temporaries and workers' pieces.
    var workspace: JobWorkspace
    /// For a `--tar` job: the archive's stream (its one planned file) and where it goes.
    var archive: ArchivePlan?
}

extension PreparedJob {
    /// What the job's output is called in events and the journal: the folder, or the archive.
    var outputDisplay: String { (archive?.path ?? destination).display }
}
