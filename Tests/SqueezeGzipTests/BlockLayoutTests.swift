import SqueezeGzip
import Testing

struct BlockLayoutTests {
    @Test func emptyFileIsOneEmptyBlock() {
        let layout = BlockLayout(fileSize: 0, blockSize: 65_536)
        #expect(layout.count == 1)
        #expect(layout.range(of: 0) == 0..<0)
        #expect(layout.dictionaryRange(of: 0) == 0..<0)
        #expect(layout.isLast(0))
    }

    @Test(arguments: [(1, 1), (65_535, 1), (65_536, 1), (65_537, 2), (131_072, 2), (131_073, 3)])
    func blockCount(fileSize: UInt64, expected: Int) {
        #expect(BlockLayout(fileSize: fileSize, blockSize: 65_536).count == expected)
    }

    @Test func lastBlockIsShorterAndRangesTileTheFile() {
        let layout = BlockLayout(fileSize: 150_000, blockSize: 65_536)
        #expect(layout.count == 3)
        #expect(layout.range(of: 0) == 0..<65_536)
        #expect(layout.range(of: 1) == 65_536..<131_072)
        #expect(layout.range(of: 2) == 131_072..<150_000)
        #expect(!layout.isLast(1) && layout.isLast(2))
        #expect(layout.dictionaryRange(of: 0) == 0..<0)
        #expect(layout.dictionaryRange(of: 1) == 32_768..<65_536)
        #expect(layout.dictionaryRange(of: 2) == 98_304..<131_072)
    }

    @Test func dictionaryIsCappedByTheFileStartForSmallBlocks() {
        let layout = BlockLayout(fileSize: 100_000, blockSize: 1_000)
        #expect(layout.dictionaryRange(of: 5) == 0..<5_000)
        #expect(layout.dictionaryRange(of: 32) == 0..<32_000)
        #expect(layout.dictionaryRange(of: 40) == 7_232..<40_000)
        #expect(BlockLayout.dictionarySize == 32_768)
    }

    @Test func hugeFilesNeedNoAllocation() {
        let tebibyte: UInt64 = 1 << 40
        let layout = BlockLayout(fileSize: 10 * tebibyte + 1, blockSize: 1 << 20)
        #expect(layout.count == 10 * (1 << 20) + 1)
        let last = layout.count - 1
        #expect(layout.range(of: last) == 10 * tebibyte..<(10 * tebibyte + 1))
        #expect(layout.dictionaryRange(of: last) == (10 * tebibyte - 32_768)..<(10 * tebibyte))
    }
}
