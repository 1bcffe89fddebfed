import SqueezeGzip
import Testing

struct StoredBlocksTests {
    /// The lengths a shared-storage worker's offsets are computed from must be what the
    /// encoder writes, at every edge of the 65,535-byte stored block.
    @Test(arguments: [0, 1, 65_534, 65_535, 65_536, 131_070, 131_071, 1 << 20, (1 << 20) + 7], [false, true])
    func encodedLengthIsWhatTheEncoderWrites(size: Int, isLast: Bool) throws {
        guard size > 0 || isLast else { return }  // a non-final block is never empty
        let data = DataKind.random.bytes(count: size, seed: UInt64(size))
        let block = try compress(data, dictionary: [], isLast: isLast, with: EngineCase.stored0.compressor())
        #expect(block.bytes.count == StoredBlocks.encodedLength(rawLength: size, isLast: isLast))
        #expect(block.crc == CRC32.checksum(data))
        // Framing and data, piece by piece: what a worker writes with pwritev.
        var framed: [UInt8] = []
        for (range, header) in StoredBlocks.segments(rawLength: size, isLast: isLast) {
            #expect(range.count <= StoredBlocks.maxLength)
            framed += header + data[range]
        }
        #expect(framed == block.bytes)
    }

    @Test func headerCarriesTheLengthAndItsComplement() {
        #expect(StoredBlocks.header(length: 0, isFinal: true) == [0x01, 0x00, 0x00, 0xFF, 0xFF])
        #expect(StoredBlocks.header(length: 65_535, isFinal: false) == [0x00, 0xFF, 0xFF, 0x00, 0x00])
        #expect(StoredBlocks.header(length: 0x1234, isFinal: false) == [0x00, 0x34, 0x12, 0xCB, 0xED])
    }

    /// Blocks of one file framed separately make one valid member: only the very last stored
    /// block is final, and gzip reads the concatenation back.
    @Test func blocksConcatenateIntoOneMember() throws {
        let data = DataKind.text.bytes(count: 3 * 100_000 + 17, seed: 5)
        let member = try GzipMember.compress(data, blockSize: 100_000, setting: LevelTable.setting(forLevel: 0),
                                             header: GzipHeader(fileName: nil, modificationTime: 0, level: 0))
        try SystemGzip.expectValid(member, original: data)
        let blocks = [100_000, 100_000, 100_000, 17]
        let expected = 10 + blocks.enumerated().reduce(0) { $0 + StoredBlocks.encodedLength(rawLength: $1.element, isLast: $1.offset == 3) } + 8
        #expect(member.count == expected)
    }
}
