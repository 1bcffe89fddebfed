/// A block as the level-0 engine writes it: nothing but stored deflate blocks (RFC 1951,
/// 3.2.4). Such a block decodes to its payloads in order: no Huffman code, no back-reference,
/// so its dictionary plays no part, and its CRC is that of the payloads where they lie.
///
/// `BlockVerifier` reads this shape itself before it asks zlib, because inflating it only
/// copies every byte into an output buffer that is then read again for the CRC; at level 0
/// that copy is a large part of a check. Only a well-formed run is taken here; anything else,
/// including every defect, goes to zlib, which says what is wrong as it always did.
enum StoredBlockRun {
    /// Header and lengths of one stored block: a byte whose low three bits are BFINAL and
    /// BTYPE 00 (the other five pad it to the byte boundary, ignored by inflate as here), then
    /// LEN and its ones' complement NLEN, little-endian.
    private static let headerLength = 5

    /// The CRC-32 of what `deflate` decodes to, when it is stored blocks only, they decode to
    /// exactly `rawLength` bytes, and they end as `isLast` requires: with a final block on the
    /// last byte for a file's last block, with no final block otherwise. Nil in every other
    /// case, which decides nothing: the caller asks zlib.
    static func checksum(_ deflate: UnsafeRawBufferPointer, rawLength: Int, isLast: Bool) -> UInt32? {
        var position = 0
        var produced = 0
        var crc: UInt32 = 0
        var sawFinal = false
        while position < deflate.count {
            guard !sawFinal, deflate.count - position >= headerLength else { return nil }
            let header = deflate[position]
            guard header & 0b110 == 0 else { return nil }
            sawFinal = header & 1 == 1
            let length = Int(deflate[position + 1]) | Int(deflate[position + 2]) << 8
            let complement = Int(deflate[position + 3]) | Int(deflate[position + 4]) << 8
            guard length ^ 0xFFFF == complement else { return nil }
            position += headerLength
            // Checked against what is left, so neither sum below can overflow.
            guard deflate.count - position >= length, rawLength - produced >= length else { return nil }
            crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: deflate[position..<(position + length)]), seed: crc)
            position += length
            produced += length
        }
        guard produced == rawLength, sawFinal == isLast else { return nil }
        return crc
    }
}
