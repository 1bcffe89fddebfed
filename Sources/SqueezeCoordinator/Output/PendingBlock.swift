import SqueezeProtocol

/// A block waiting in a writer for the blocks before it: bytes from a message, or a piece
/// on shared storage.
enum PendingBlock: Sendable {
    /// Raw deflate received from a remote worker.
    case bytes(ResultBlock)
    /// Raw deflate a shared-storage worker wrote to a piece file.
    case piece(PieceBlock)

    /// CRC-32 of the block's uncompressed data.
    var crc: UInt32 {
        switch self {
        case .bytes(let block): block.crc
        case .piece(let piece): piece.crc
        }
    }

    /// Uncompressed length.
    var rawLength: Int {
        switch self {
        case .bytes(let block): block.rawLength
        case .piece(let piece): piece.rawLength
        }
    }

    /// Compressed length.
    var length: UInt64 {
        switch self {
        case .bytes(let block): UInt64(block.bytes.count)
        case .piece(let piece): piece.length
        }
    }
}
