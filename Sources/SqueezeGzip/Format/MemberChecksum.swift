/// Running CRC-32 and length over a file's blocks, appended in file order, for the trailer.
public struct MemberChecksum: Sendable {
    /// CRC-32 of everything appended so far (0 when nothing was appended).
    public private(set) var crc: UInt32 = 0
    /// Total uncompressed bytes appended so far (not truncated; the trailer does that).
    public private(set) var length: UInt64 = 0

    /// Starts with no data: CRC 0, length 0.
    public init() {}

    /// Appends the next block's CRC-32 and length; blocks must come in file order.
    public mutating func append(crc blockCRC: UInt32, length blockLength: Int) {
        precondition(blockLength >= 0, "block length must not be negative")
        // crc32_combine(0, c, n) == c, so the first block needs no special case.
        crc = CRC32.combine(crc, blockCRC, secondLength: Int64(blockLength))
        length += UInt64(blockLength)
    }

    /// The trailer for the data appended so far.
    public var trailer: GzipTrailer {
        GzipTrailer(crc: crc, inputLength: length)
    }
}
