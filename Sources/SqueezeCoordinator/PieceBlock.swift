import SqueezeIO

/// A compressed block (or a whole `.gz`) on shared storage, as its worker reported it.
struct PieceBlock: Sendable {
    /// The piece file in the job's workspace (named by the coordinator, never by the worker).
    var path: BytePath
    /// CRC-32 of the block's uncompressed data.
    var crc: UInt32
    /// Uncompressed length.
    var rawLength: Int
    /// Bytes in the piece.
    var length: UInt64
    /// The item, attempt and position in the item that wrote it (a stitch names it by them).
    var item: UInt64
    /// The accepted attempt.
    var attempt: UInt64
    /// The block's position in the item.
    var position: Int
}
