import SqueezeGzip
import Testing

struct BlockCompressorTests {
    @Test(arguments: [(CompressionEngine.zlib, -1), (.zlib, 10), (.libdeflate, 13), (.isal, 4), (.isal, -1), (.stored, 1)])
    func rejectsLevelsOutsideTheEnginesRange(engine: CompressionEngine, level: Int) {
        #expect(throws: EngineError.self) {
            _ = try EngineSetting(engine: engine, level: level)
        }
    }

    @Test(arguments: CompressionEngine.allCases)
    func emptyFinalBlockIsAValidEmptyMember(engine: CompressionEngine) throws {
        let compressor = try BlockCompressor(setting: LevelTable.setting(forLevel: 6, engine: engine))
        let block = try compress([], dictionary: [], isLast: true, with: compressor)
        #expect(block.crc == 0 && block.rawLength == 0)
        var member = GzipHeader(fileName: nil, modificationTime: 0, level: 6).encoded() + block.bytes
        member += GzipTrailer(crc: 0, inputLength: 0).encoded()
        try SystemGzip.expectValid(member, original: [])
    }

    @Test func zlibEmptyFinalBlockIsTheShortestStream() throws {
        let block = try compress([], dictionary: [], isLast: true, with: EngineCase.zlib6.compressor())
        // BFINAL=1, BTYPE=01, end-of-block code: the shortest complete deflate stream.
        #expect(block == CompressedBlock(bytes: [0x03, 0x00], crc: 0, rawLength: 0))
    }

    @Test(arguments: EngineCase.allCases, DataKind.allCases)
    func nonFinalBlocksEndByteAlignedWithASyncMarker(engine: EngineCase, kind: DataKind) throws {
        let data = kind.bytes(count: 100_000)
        let block = try compress(data, dictionary: [], isLast: false, with: engine.compressor())
        if engine.endsWithSyncMarker {
            #expect(Array(block.bytes.suffix(4)) == [0x00, 0x00, 0xFF, 0xFF])
        } else {
            #expect(block.bytes.count == StoredBlocks.encodedLength(rawLength: data.count, isLast: false))
        }
        #expect(block.crc == CRC32.checksum(data))
        #expect(block.rawLength == data.count)
        // Followed by an empty final block, it is a complete stream that inflates to the data.
        var member = GzipHeader(fileName: nil, modificationTime: 0, level: 6).encoded() + block.bytes + [0x03, 0x00]
        member += GzipTrailer(crc: block.crc, inputLength: UInt64(data.count)).encoded()
        try SystemGzip.expectValid(member, original: data)
    }

    @Test(arguments: EngineCase.allCases)
    func reuseDoesNotLeakStateBetweenBlocks(engine: EngineCase) throws {
        let compressor = try engine.compressor()
        let first = DataKind.text.bytes(count: 50_000, seed: 1)
        let second = DataKind.random.bytes(count: 50_000, seed: 2)
        let dictionary = DataKind.text.bytes(count: 32_768, seed: 3)
        let before = try compress(first, dictionary: dictionary, isLast: false, with: compressor)
        _ = try compress(second, dictionary: [], isLast: true, with: compressor)
        let after = try compress(first, dictionary: dictionary, isLast: false, with: compressor)
        #expect(before == after)
        #expect(before == (try compress(first, dictionary: dictionary, isLast: false, with: engine.compressor())))
    }

    @Test(arguments: EngineCase.representative)
    func onlyTheLast32KiBOfALongDictionaryCount(engine: EngineCase) throws {
        let data = DataKind.text.bytes(count: 40_000, seed: 4)
        let long = DataKind.text.bytes(count: 100_000, seed: 5)
        let fromLong = try compress(data, dictionary: long, isLast: true, with: engine.compressor())
        let fromTail = try compress(data, dictionary: Array(long.suffix(32_768)), isLast: true, with: engine.compressor())
        #expect(fromLong == fromTail)
    }

    @Test(arguments: EngineCase.allCases.filter { $0.usesDictionary && $0.level > 0 })
    func dictionaryShrinksABlockThatRepeatsIt(engine: EngineCase) throws {
        let previous = DataKind.random.bytes(count: 32_768, seed: 6)
        // Incompressible except via the dictionary; the suffix keeps match distances (20 000)
        // inside zlib's usable window (32 KiB minus its 262-byte lookahead).
        let block = Array(previous.suffix(20_000))
        let without = try compress(block, dictionary: [], isLast: true, with: engine.compressor())
        let with = try compress(block, dictionary: previous, isLast: true, with: engine.compressor())
        #expect(with.bytes.count * 10 < without.bytes.count)
    }

    /// Workers compress blocks concurrently, each task with its own compressor; the member
    /// assembled from their results must match the sequential one byte for byte.
    @Test(arguments: EngineCase.representative)
    func concurrentPerTaskCompressorsMatchSequential(engine: EngineCase) async throws {
        let data = DataKind.text.bytes(count: 600_000, seed: 7)
        let layout = BlockLayout(fileSize: UInt64(data.count), blockSize: 65_536)
        let header = GzipHeader(fileName: Array("c.txt".utf8), modificationTime: 42, level: 6)

        let blocks = try await withThrowingTaskGroup(of: (Int, CompressedBlock).self) { group in
            for index in 0..<layout.count {
                group.addTask {
                    let compressor = try engine.compressor()
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
        #expect(member == (try GzipMember.compress(data, blockSize: 65_536, setting: engine.setting(), header: header)))
        try SystemGzip.expectValid(member, original: data)
    }
}

func compress(_ block: [UInt8], dictionary: [UInt8], isLast: Bool,
              with compressor: BlockCompressor) throws -> CompressedBlock {
    try block.withUnsafeBytes { block in
        try dictionary.withUnsafeBytes { dictionary in
            try compressor.compress(block, dictionary: dictionary, isLast: isLast)
        }
    }
}
