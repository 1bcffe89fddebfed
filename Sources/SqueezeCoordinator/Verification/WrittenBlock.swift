import SqueezeGzip
import SqueezeIO

/// A block a shared-storage worker wrote to disk, and what it must hold: where it is (a piece,
/// or its range of a placed output), where its source bytes are, and the claim.
struct WrittenBlock: Sendable {
    /// The file holding it.
    var path: BytePath
    /// Where it starts there (0 for a piece; its offset for a block written in place).
    var offset: UInt64
    /// Its length, as reported (already bounded by the decoder).
    var length: UInt64
    /// The source file, as the scan stamped it.
    var source: BytePath
    var stamp: FileStamp
    /// Dictionary and data, read in one go.
    var sourceRange: Range<UInt64>
    var dictionaryLength: Int
    /// What it must decode to.
    var claim: BlockClaim
    /// For a block of a `--tar` job's stream: what `sourceRange` of the stream is made of (then
    /// `source` and `stamp` say nothing).
    var segments: [SourceSegment]? = nil
    /// For a one-block file written as a whole member: the gzip header it must start with.
    var header: [UInt8]?
}
