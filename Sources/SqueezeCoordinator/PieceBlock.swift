import SqueezeIO

/// A compressed block on shared storage, as its worker reported it.
struct PieceBlock: Sendable {
    /// The piece file in the job's workspace (named by the coordinator, never by the worker).
    var path: BytePath
    /// CRC-32 of the block's uncompressed data.
    var crc: UInt32
    /// Uncompressed length.
    var rawLength: Int
    /// Bytes in the piece.
    var length: UInt64
    /// The piece is the whole `.gz` (a one-block file): it is renamed into place, not copied.
    var member: Bool
}
