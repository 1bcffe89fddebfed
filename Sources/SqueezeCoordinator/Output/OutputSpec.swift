import SqueezeGzip
import SqueezeIO

/// What a writer needs to produce one `.gz`.
struct OutputSpec: Sendable {
    /// Which file.
    var key: FileKey
    /// Where the `.gz` goes.
    var outputPath: BytePath
    /// The source's path under the job's source root: how the journal names the file.
    var relativePath: [UInt8]
    /// Header with FNAME and MTIME.
    var header: GzipHeader
    /// Blocks in the file.
    var blockCount: Int
    /// Source stamp: permissions and mtime are copied to the output.
    var stamp: FileStamp
    /// Whether an existing output may be replaced.
    var replace: Bool
    /// The job's workspace, where the temporary is written.
    var workspace: BytePath
}
