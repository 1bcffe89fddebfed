import SqueezeGzip

/// A segment of a stitch sent to its worker: the range of the output it must fill and, when
/// the job's answers are checked, the CRC-32 those bytes must have.
struct StitchSegment: Sendable, Equatable {
    /// From where the segment before it ended (0 for the first, whose range holds the gzip
    /// header, unless the member has an offset table: its header is checked at the end) to
    /// past its pieces (and the trailer, for the last).
    var range: Range<UInt64>
    /// What a check of the range must find, computed without reading it: nil when the job's
    /// answers are not checked.
    var expectedCRC: UInt32?
    /// Which of the file's pieces it holds, and the header and trailer it writes (empty when
    /// not its to write): what the coordinator reads when a check disagrees.
    var pieces: Range<Int>
    var header: [UInt8]
    var trailer: [UInt8]
    /// The last segment of a member with an offset table: the header with the table's
    /// lengths, which the stitcher writes over the first segment's; checked on its own. Empty
    /// otherwise.
    var finalHeader: [UInt8] = []

    /// The CRC-32 of `header`, then pieces whose bytes have the given CRC-32s and lengths,
    /// then `trailer`, as one run of bytes: what a stitched segment holding them must have.
    static func expectedCRC(header: [UInt8], pieces: [(crc: UInt32, length: UInt64)], trailer: [UInt8]) -> UInt32 {
        var crc = CRC32.checksum(header)
        for piece in pieces {
            crc = CRC32.combine(crc, piece.crc, secondLength: Int64(clamping: piece.length))
        }
        return CRC32.combine(crc, CRC32.checksum(trailer), secondLength: Int64(trailer.count))
    }
}
