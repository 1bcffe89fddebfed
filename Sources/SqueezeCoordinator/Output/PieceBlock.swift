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
    /// CRC-32 of the piece's bytes as its check read them (by a verifier that reports it, or
    /// by the coordinator): what a stitched segment made of it must agree with. Nil until
    /// checked, or when its verifier does not report it.
    var storedCRC: UInt32?
    /// The verifier that reported `storedCRC` (its routing id); nil when the coordinator read
    /// it. Blamed if the piece turns out not to have it.
    var storedCRCReporter: PeerID?
    /// The CRC-32 of the piece's bytes as the worker that wrote it reported them. Equal to
    /// `storedCRC` as another principal read it, two independent principals stand behind it
    /// (`isStoredCRCConfirmed`).
    var writtenCRC: UInt32?
    /// The item, attempt and position in the item that wrote it (a stitch names it by them).
    var item: ItemID
    /// The accepted attempt.
    var attempt: AttemptID
    /// The block's position in the item.
    var position: Int
    /// Where the block starts in `path`: nonzero for a block written in place into its
    /// file's output, which holds other blocks too and is not removed once copied.
    var offset: UInt64 = 0
    /// Written in place in its file's output rather than as a piece of its own.
    var placed = false

    /// Whether the stored CRC was read by a verifier (the compressor's other principal) and
    /// agrees with what the compressor reported writing: no one party made it up, so a segment
    /// check need not be independent of that verifier.
    var isStoredCRCConfirmed: Bool {
        storedCRCReporter != nil && storedCRC != nil && writtenCRC == storedCRC
    }
}
