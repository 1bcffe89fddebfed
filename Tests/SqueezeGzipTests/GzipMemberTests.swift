import SqueezeGzip
import Testing

struct GzipMemberTests {
    static let header = GzipHeader(fileName: Array("data.bin".utf8), modificationTime: 1_600_000_000,
                                   level: 6)

    @Test(arguments: RoundTripCase.matrix, EngineCase.representative)
    func roundTripsThroughSystemGzip(_ testCase: RoundTripCase, engine: EngineCase) throws {
        let data = testCase.kind.bytes(count: testCase.size)
        let member = try GzipMember.compress(data, blockSize: testCase.blockSize, setting: engine.setting(),
                                             header: Self.header)
        try SystemGzip.expectValid(member, original: data)
    }

    @Test(arguments: LevelTable.levels, DataKind.allCases)
    func everyLevelRoundTrips(level: Int, kind: DataKind) throws {
        let data = kind.bytes(count: 2 * 65_536 + 1)
        let header = GzipHeader(fileName: nil, modificationTime: 0, level: level)
        let member = try GzipMember.compress(data, blockSize: 65_536, setting: LevelTable.setting(forLevel: level), header: header)
        try SystemGzip.expectValid(member, original: data)
        #expect(member[8] == (level == 1 ? 4 : level == 9 ? 2 : 0))  // XFL follows the level
    }

    @Test(arguments: DataKind.allCases, EngineCase.representative)
    func blockOrderDoesNotChangeTheBytes(kind: DataKind, engine: EngineCase) throws {
        let data = kind.bytes(count: 7 * 65_536 + 123)
        let count = BlockLayout(fileSize: UInt64(data.count), blockSize: 65_536).count
        var rng = SplitMix64(seed: 99)
        let orders = [Array((0..<count).reversed()), Array(0..<count).shuffled(using: &rng)]
        let inOrder = try GzipMember.compress(data, blockSize: 65_536, setting: engine.setting(), header: Self.header)
        for order in orders {
            let reordered = try GzipMember.compress(data, blockSize: 65_536, setting: engine.setting(),
                                                    header: Self.header, blockOrder: order)
            #expect(reordered == inOrder, "order \(order)")
        }
    }

    @Test(arguments: EngineCase.representative)
    func multiMebibyteMixedInput(engine: EngineCase) throws {
        // Text with random stretches: both stored and Huffman blocks, across 48 blocks.
        var data: [UInt8] = []
        for part in 0..<12 {
            let kind: DataKind = part % 3 == 2 ? .random : .text
            data += kind.bytes(count: 512 * 1024 + part, seed: UInt64(part))
        }
        let count = BlockLayout(fileSize: UInt64(data.count), blockSize: 131_072).count
        var rng = SplitMix64(seed: 7)
        let shuffled = Array(0..<count).shuffled(using: &rng)
        let member = try GzipMember.compress(data, blockSize: 131_072, setting: engine.setting(), header: Self.header)
        let reordered = try GzipMember.compress(data, blockSize: 131_072, setting: engine.setting(),
                                                header: Self.header, blockOrder: shuffled)
        #expect(member == reordered)
        try SystemGzip.expectValid(member, original: data)
    }

    /// With each block primed by the previous 32 KiB, splitting costs almost nothing; without
    /// the dictionary every block would restart matching from scratch.
    @Test(arguments: [EngineCase.zlib6, .isal3])
    func blockedOutputIsWithinOnePercentOfASingleStream(engine: EngineCase) throws {
        let data = DataKind.text.bytes(count: 2 * 1024 * 1024, seed: 11)
        let member = try GzipMember.compress(data, blockSize: 131_072, setting: engine.setting(), header: Self.header)
        let blockedDeflate = member.count - Self.header.encoded().count - 8

        let single = try data.withUnsafeBytes { all in
            try engine.compressor().compress(all, dictionary: UnsafeRawBufferPointer(start: nil, count: 0),
                                                   isLast: true)
        }
        let overhead = Double(blockedDeflate - single.bytes.count) / Double(single.bytes.count)
        #expect(overhead < 0.01, "blocked \(blockedDeflate) vs single \(single.bytes.count)")

        // Same blocks without dictionaries, to show the comparison above has teeth.
        let layout = BlockLayout(fileSize: UInt64(data.count), blockSize: 131_072)
        let compressor = try engine.compressor()
        let undictionaried = try data.withUnsafeBytes { all in
            try (0..<layout.count).reduce(0) { total, index in
                let range = layout.range(of: index)
                let block = UnsafeRawBufferPointer(rebasing: all[Int(range.lowerBound)..<Int(range.upperBound)])
                let compressed = try compressor.compress(
                    block, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: layout.isLast(index))
                return total + compressed.bytes.count
            }
        }
        #expect(undictionaried > blockedDeflate)
    }
}
