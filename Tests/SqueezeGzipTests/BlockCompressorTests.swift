import SqueezeGzip
import Testing

struct BlockCompressorTests {
    @Test(arguments: [-1, 10])
    func rejectsLevelsOutsideZeroToNine(level: Int) {
        #expect {
            _ = try BlockCompressor(level: level)
        } throws: { error in
            guard let error = error as? ZlibError else { return false }
            return error.operation == "deflateInit2" && error.code == -2  // Z_STREAM_ERROR
        }
    }

    @Test func emptyFinalBlockIsAnEmptyFixedBlock() throws {
        let compressor = try BlockCompressor(level: 6)
        let block = try compressor.compress(UnsafeRawBufferPointer(start: nil, count: 0),
                                            dictionary: UnsafeRawBufferPointer(start: nil, count: 0),
                                            isLast: true)
        // BFINAL=1, BTYPE=01, end-of-block code: the shortest complete deflate stream.
        #expect(block == CompressedBlock(bytes: [0x03, 0x00], crc: 0, rawLength: 0))
    }

    @Test(arguments: [0, 1, 6, 9])
    func nonFinalBlocksEndByteAlignedWithASyncMarker(level: Int) throws {
        let data = DataKind.text.bytes(count: 10_000)
        let block = try compress(data, dictionary: [], isLast: false, level: level)
        #expect(Array(block.bytes.suffix(4)) == [0x00, 0x00, 0xFF, 0xFF])
        #expect(block.crc == CRC32.checksum(data))
        #expect(block.rawLength == data.count)
    }

    @Test func reuseDoesNotLeakStateBetweenBlocks() throws {
        let compressor = try BlockCompressor(level: 6)
        let first = DataKind.text.bytes(count: 50_000, seed: 1)
        let second = DataKind.random.bytes(count: 50_000, seed: 2)
        let dictionary = DataKind.text.bytes(count: 32_768, seed: 3)
        let before = try compress(first, dictionary: dictionary, isLast: false, with: compressor)
        _ = try compress(second, dictionary: [], isLast: true, with: compressor)
        let after = try compress(first, dictionary: dictionary, isLast: false, with: compressor)
        #expect(before == after)
        #expect(before == (try compress(first, dictionary: dictionary, isLast: false, level: 6)))
    }

    @Test func onlyTheLast32KiBOfALongDictionaryCount() throws {
        let data = DataKind.text.bytes(count: 40_000, seed: 4)
        let long = DataKind.text.bytes(count: 100_000, seed: 5)
        let fromLong = try compress(data, dictionary: long, isLast: true, level: 6)
        let fromTail = try compress(data, dictionary: Array(long.suffix(32_768)), isLast: true, level: 6)
        #expect(fromLong == fromTail)
    }

    @Test func dictionaryShrinksABlockThatRepeatsIt() throws {
        let previous = DataKind.random.bytes(count: 32_768, seed: 6)
        // Incompressible except via the dictionary; the suffix keeps match distances (20 000)
        // inside zlib's usable window (32 KiB minus its 262-byte lookahead).
        let block = Array(previous.suffix(20_000))
        let without = try compress(block, dictionary: [], isLast: true, level: 6)
        let with = try compress(block, dictionary: previous, isLast: true, level: 6)
        #expect(with.bytes.count * 10 < without.bytes.count)
    }

    /// Workers compress blocks concurrently, each task with its own compressor; the member
    /// assembled from their results must match the sequential one byte for byte.
    @Test func concurrentPerTaskCompressorsMatchSequential() async throws {
        let data = DataKind.text.bytes(count: 600_000, seed: 7)
        let layout = BlockLayout(fileSize: UInt64(data.count), blockSize: 65_536)
        let header = GzipHeader(fileName: Array("c.txt".utf8), modificationTime: 42, level: 6)

        let blocks = try await withThrowingTaskGroup(of: (Int, CompressedBlock).self) { group in
            for index in 0..<layout.count {
                group.addTask {
                    let compressor = try BlockCompressor(level: 6)
                    let range = Int(layout.range(of: index).lowerBound)..<Int(layout.range(of: index).upperBound)
                    let dictionaryRange = layout.dictionaryRange(of: index)
                    let dictionary = Array(data[Int(dictionaryRange.lowerBound)..<Int(dictionaryRange.upperBound)])
                    let block = try compress(Array(data[range]), dictionary: dictionary,
                                             isLast: layout.isLast(index), with: compressor)
                    return (index, block)
                }
            }
            var blocks = [CompressedBlock?](repeating: nil, count: layout.count)
            for try await (index, block) in group {
                blocks[index] = block
            }
            return blocks.compactMap { $0 }
        }
        #expect(blocks.count == layout.count)

        var member = header.encoded()
        var checksum = MemberChecksum()
        for block in blocks {
            member += block.bytes
            checksum.append(crc: block.crc, length: block.rawLength)
        }
        member += checksum.trailer.encoded()
        #expect(member == (try GzipMember.compress(data, blockSize: 65_536, level: 6, header: header)))
        try SystemGzip.expectValid(member, original: data)
    }
}

private func compress(_ block: [UInt8], dictionary: [UInt8], isLast: Bool,
                      level: Int) throws -> CompressedBlock {
    try compress(block, dictionary: dictionary, isLast: isLast, with: BlockCompressor(level: level))
}

private func compress(_ block: [UInt8], dictionary: [UInt8], isLast: Bool,
                      with compressor: BlockCompressor) throws -> CompressedBlock {
    try block.withUnsafeBytes { block in
        try dictionary.withUnsafeBytes { dictionary in
            try compressor.compress(block, dictionary: dictionary, isLast: isLast)
        }
    }
}
