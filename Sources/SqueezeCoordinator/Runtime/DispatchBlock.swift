import SqueezeArchive
import SqueezeIO

/// One block a reader must load: the dictionary and the block in one contiguous read.
struct DispatchBlock: Sendable {
    /// Which block.
    var ref: BlockRef
    /// The source file.
    var path: BytePath
    /// What the scan saw; the read fails if the file changed.
    var stamp: FileStamp
    /// From the dictionary's start to the block's end.
    var readRange: Range<UInt64>
    /// Leading bytes of the read that are the dictionary.
    var dictionaryLength: Int
    /// Whether the block ends its file.
    var isLast: Bool
    /// For a `--tar` job, the stream `readRange` is a range of (`path` and `stamp` are then
    /// the archive's, never read).
    var archive: TarLayout?
}
