/// Deflate's stored (uncompressed) blocks, as the `stored` engine writes a block: its bytes
/// cut into stored blocks of at most 65,535 bytes, each behind a 5-byte header (BFINAL and
/// BTYPE 00 in the first byte, padding to the byte, then LEN and NLEN little-endian). Only
/// the last stored block of a file's last block is final; an empty final block is one empty
/// stored block. The output's length depends only on the block's, so every offset in a
/// file's member is known before anything is compressed.
public enum StoredBlocks {
    /// Most bytes one stored block holds.
    public static let maxLength = 65_535
    /// Bytes of a stored block's header.
    public static let headerLength = 5

    /// Length of a block of `rawLength` bytes once framed.
    public static func encodedLength(rawLength: Int, isLast: Bool) -> Int {
        guard rawLength > 0 else { return isLast ? headerLength : 0 }
        return rawLength + headerLength * ((rawLength + maxLength - 1) / maxLength)
    }

    /// The stored blocks of a block of `rawLength` bytes, in order: where each one's bytes lie
    /// in the block and its header.
    public static func segments(rawLength: Int, isLast: Bool) -> [(range: Range<Int>, header: [UInt8])] {
        guard rawLength > 0 else { return isLast ? [(0..<0, header(length: 0, isFinal: true))] : [] }
        return stride(from: 0, to: rawLength, by: maxLength).map { start in
            let end = min(start + maxLength, rawLength)
            return (start..<end, header(length: end - start, isFinal: isLast && end == rawLength))
        }
    }

    /// The header of one stored block of `length` bytes (at most `maxLength`).
    public static func header(length: Int, isFinal: Bool) -> [UInt8] {
        precondition((0...maxLength).contains(length), "a stored block holds at most 65,535 bytes")
        let value = UInt16(length)
        return [isFinal ? 1 : 0, UInt8(value & 0xFF), UInt8(value >> 8), UInt8(~value & 0xFF), UInt8(~value >> 8)]
    }
}
