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
    /// Header with FNAME and MTIME, as written first: for a member with an offset table, the
    /// table's shape with zero lengths (or, for an output workers wrote, its final lengths).
    var header: GzipHeader
    /// Blocks per span of the header's offset table, nil without one: a writer that appends
    /// the blocks itself sums their lengths per span and writes the header again at the end.
    var spanBlocks: Int?
    /// Blocks in the file.
    var blockCount: Int
    /// Source stamp: permissions and mtime are copied to the output.
    var stamp: FileStamp
    /// Whether an existing output may be replaced.
    var replace: Bool
    /// The job's workspace, where the temporary is written.
    var workspace: BytePath
}
