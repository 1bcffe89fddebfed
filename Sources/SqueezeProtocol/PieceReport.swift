/// One piece a shared-storage worker wrote, in the same position as in its assignment.
public struct PieceReport: Sendable, Equatable {
    /// CRC-32 of the block's uncompressed data.
    public var crc: UInt32
    /// Uncompressed length, checked against the plan.
    public var rawLength: Int
    /// Bytes in the piece file (header and trailer included for a whole member).
    public var pieceLength: UInt64
    /// CRC-32 of the bytes written for the piece (header and trailer included for a whole
    /// member), as the worker wrote them; nil when it does not say. A stitched segment's
    /// expected CRC rests on a piece's stored CRC: when this agrees with what the piece's
    /// verifier read, two principals stand behind it.
    public var storedCRC: UInt32?
    /// Why the block could not be read (the source changed, vanished or cannot be opened);
    /// no piece was written and its file fails. Nil when the piece is written.
    public var failure: String?

    /// Creates a report of a written piece.
    public init(crc: UInt32, rawLength: Int, pieceLength: UInt64, storedCRC: UInt32? = nil) {
        self.crc = crc
        self.rawLength = rawLength
        self.pieceLength = pieceLength
        self.storedCRC = storedCRC
    }

    /// Creates a report of a block that could not be read.
    public init(failure: String) {
        crc = 0
        rawLength = 0
        pieceLength = 0
        self.failure = failure
    }
}
