import SqueezeGzip
import Testing

struct GzipOffsetTableTests {
    /// The smallest chunks, so that every restart point of a member of 32 KiB blocks starts one.
    private static let decoder = ParallelGzipDecoder(threads: 3, chunkBytes: 4096, minimumBytes: 0)

    private static func decode(_ gzip: [UInt8]) throws -> (bytes: [UInt8], tally: ParallelGzipDecoder.Tally) {
        try ParallelGzipDecoderTests.decodeAll(gzip, with: decoder)
    }

    static func member(_ data: [UInt8], level: Int, blockSize: Int = 8192, table: Bool = true) throws -> [UInt8] {
        try GzipMember.compress(data, blockSize: blockSize, setting: LevelTable.setting(forLevel: level),
                                header: GzipMemberTests.header, offsetTable: table)
    }

    /// Where the header's deflate data starts: fixed part, XLEN and extra field, name.
    private static func dataStart(_ member: [UInt8]) -> Int {
        let extraEnd = 12 + (Int(member[10]) | Int(member[11]) << 8)
        return (member[extraEnd...].firstIndex(of: 0) ?? member.count) + 1
    }

    @Test("levels 0 and 2-9 restart at every block, level 1 every 4 MiB; one block gets no table; the table always fits FEXTRA")
    func spans() {
        #expect(GzipOffsetTable.blocksPerSpan(for: BlockLayout(fileSize: 100, blockSize: 512 << 10), engine: .libdeflate) == nil)
        #expect(GzipOffsetTable.blocksPerSpan(for: BlockLayout(fileSize: 1 << 20, blockSize: 512 << 10), engine: .libdeflate) == 1)
        #expect(GzipOffsetTable.blocksPerSpan(for: BlockLayout(fileSize: 1 << 20, blockSize: 512 << 10), engine: .stored) == 1)
        #expect(GzipOffsetTable.blocksPerSpan(for: BlockLayout(fileSize: 100 << 20, blockSize: 512 << 10), engine: .isal) == 8)
        #expect(GzipOffsetTable.blocksPerSpan(for: BlockLayout(fileSize: 4 << 20, blockSize: 512 << 10), engine: .isal) == nil)
        for size: UInt64 in [1 << 40, 1 << 43, (1 << 43) + 12345] {
            let layout = BlockLayout(fileSize: size, blockSize: 512 << 10)
            guard let perSpan = GzipOffsetTable.blocksPerSpan(for: layout, engine: .libdeflate) else {
                Issue.record("no table for \(size)")
                continue
            }
            let header = GzipHeader(fileName: nil, modificationTime: 0, level: 6, offsetTable: .placeholder(for: layout, blocksPerSpan: perSpan))
            #expect(header.encoded().count <= 10 + 2 + Int(UInt16.max), "\(size)")
        }
        // Spans would pass 1 GiB: no table.
        #expect(GzipOffsetTable.blocksPerSpan(for: BlockLayout(fileSize: 1 << 50, blockSize: 512 << 10), engine: .libdeflate) == nil)
    }

    @Test("the subfield's bytes: FLG.FEXTRA, XLEN, 'Sq', LEN, version 1, span size, each span's length; offsets land after sync-flush markers; gzip reads it",
          arguments: [0, 6, 9])
    func layout(level: Int) throws {
        let data = DataKind.text.bytes(count: 100_000)
        let member = try Self.member(data, level: level, blockSize: 32 << 10)
        #expect(member[3] == 0x08 | 0x04)
        let xlen = Int(member[10]) | Int(member[11]) << 8
        #expect(Array(member[12..<14]) == [0x53, 0x71])
        let length = Int(member[14]) | Int(member[15]) << 8
        #expect(xlen == 4 + length && length == 5 + 4 * 3)
        #expect(member[16] == 1)
        #expect(Array(member[17..<21]) == [0, 0x80, 0, 0])
        let start = Self.dataStart(member)
        guard case .found(let points) = RestartPoints.read(header: member, dataStart: UInt64(start), fileSize: UInt64(member.count)) else {
            Issue.record("no table found")
            return
        }
        #expect(points.offsets.count == 4 && points.offsets[0] == UInt64(start) && points.spanBytes == 32 << 10)
        for offset in points.offsets.dropFirst() where level != 0 {
            #expect(Array(member[Int(offset) - 4..<Int(offset)]) == [0, 0, 0xff, 0xff], "level \(level) at \(offset)")
        }
        try SystemGzip.expectValid(member, original: data)
        #expect(try Self.member(data, level: level, blockSize: 200_000) == Self.member(data, level: level, blockSize: 200_000, table: false))
    }

    @Test("the parallel decoder cuts at the table: every chunk decodes alone at level 6, and at level 1 (restarts every 4 MiB, unprimed)",
          arguments: [1, 6])
    func decodesFromTheTable(level: Int) throws {
        let data = DataKind.text.bytes(count: 6 << 20) + DataKind.random.bytes(count: 1 << 20) + DataKind.text.bytes(count: 5 << 20)
        let member = try Self.member(data, level: level, blockSize: 512 << 10)
        let (bytes, tally) = try Self.decode(member)
        #expect(bytes == data)
        // Chunks of whole spans: level 1's 4 MiB spans, level 6's 512 KiB blocks.
        #expect(tally.usedTable && tally.tableDefect == nil && tally.chunksInOrder == 0 && tally.chunksAlone == (level == 1 ? 3 : 24), "\(tally)")
    }

    @Test("the streaming writer with a planned size writes the same member as GzipMember with a table, for 1 and 4 threads, and its final header only replaces the first",
          arguments: [1, 6])
    func writerMatchesMember(level: Int) throws {
        let data = DataKind.text.bytes(count: 9 << 20 + 777)
        let setting = try LevelTable.setting(forLevel: level)
        let expected = try Self.member(data, level: level, blockSize: 512 << 10)
        for count in [1, 4] {
            let threads = try DeflateThreads(setting: setting, count: count)
            defer { threads.shutdown() }
            var output: [UInt8] = []
            let writer = try ParallelGzipWriter(threads: threads, blockSize: 512 << 10, header: GzipMemberTests.header,
                                                plannedSize: UInt64(data.count)) { output.append(contentsOf: $0) }
            try data.withUnsafeBytes { try writer.write($0) }
            guard let header = try writer.finish().finalHeader else {
                Issue.record("no final header")
                continue
            }
            output.replaceSubrange(0..<header.count, with: header)
            #expect(output == expected, "\(count) threads")
        }
        #expect(try GzipDecoder.decompress(expected) == data)
    }

    @Test("a planned stream of another length fails rather than carry a wrong table")
    func plannedLengthMustHold() throws {
        let threads = try DeflateThreads(setting: LevelTable.setting(forLevel: 6), count: 2)
        defer { threads.shutdown() }
        let writer = try ParallelGzipWriter(threads: threads, blockSize: 65_536, header: GzipMemberTests.header, plannedSize: 1 << 20) { _ in }
        let data = DataKind.text.bytes(count: 300_000)
        try data.withUnsafeBytes { try writer.write($0) }
        #expect(throws: EngineError.self) { try writer.finish() }
    }

    @Test("2,000 random mutations of the subfield, and 500 tables of lying offsets: the output is the data or zlib's refusal, never other bytes; every changed table is reported in one line")
    func lyingTables() throws {
        let data = DataKind.text.bytes(count: 500_000) + DataKind.random.bytes(count: 60_000)
        let good = try Self.member(data, level: 6, blockSize: 32 << 10)
        let xlen = Int(good[10]) | Int(good[11]) << 8
        let subfield = 12..<(12 + xlen)
        var rng = SplitMix64(seed: 0x7AB1E)
        for round in 0..<2000 {
            var bytes = good
            for _ in 0...(rng.next() % 4) {
                let at = round % 4 == 0 ? 10 + Int(rng.next() % UInt64(xlen + 2)) : subfield.lowerBound + 4 + Int(rng.next() % UInt64(min(xlen - 4, 48)))
                bytes[at] ^= UInt8(1 << (rng.next() % 8))
            }
            try Self.expectSafe(bytes, data: data, changedTable: bytes[subfield] != good[subfield] && bytes[10..<14] == good[10..<14], round: round)
        }
        // Well-formed tables that lie: shuffled, shifted, stretched lengths; a wrong span size.
        let entries = (xlen - 4 - 5) / 4
        let lengths = (0..<entries).map { entry in (0..<4).reduce(UInt32(0)) { $0 | UInt32(good[subfield.lowerBound + 9 + entry * 4 + $1]) << (8 * $1) } }
        for round in 0..<500 {
            var lying = lengths
            switch round % 5 {
            case 0: lying.shuffle(using: &rng)
            case 1: lying[Int(rng.next() % UInt64(entries))] &+= UInt32(rng.next() % 9) &- 4
            case 2: lying = lying.map { $0 &+ UInt32(rng.next() % 3) &- 1 }
            case 3: lying[Int(rng.next() % UInt64(entries))] = UInt32(truncatingIfNeeded: rng.next())
            default: lying.swapAt(Int(rng.next() % UInt64(entries)), Int(rng.next() % UInt64(entries)))
            }
            var bytes = good
            for (entry, value) in lying.enumerated() {
                for byte in 0..<4 { bytes[subfield.lowerBound + 9 + entry * 4 + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
            }
            if round % 7 == 0 { bytes[subfield.lowerBound + 6] ^= 0x10 }  // span size
            try Self.expectSafe(bytes, data: data, changedTable: bytes != good, round: round)
        }
    }

    /// `bytes` decodes to `data` or is refused as zlib refuses it; a table that changed is reported.
    private static func expectSafe(_ bytes: [UInt8], data: [UInt8], changedTable: Bool, round: Int) throws {
        let reference = try? GzipDecoder.decompress(bytes)
        do {
            let (decoded, tally) = try Self.decode(bytes)
            #expect(sameBytes(decoded, reference), "round \(round): \(decoded.count) bytes, zlib's \(reference?.count ?? -1)")
            #expect(sameBytes(decoded, data), "round \(round): \(decoded.count) bytes of \(data.count)")
            if changedTable {
                #expect(tally.tableDefect != nil, "round \(round): \(tally)")
            }
            #expect(tally.tableDefect?.contains("\n") != true)
        } catch {
            #expect(reference == nil, "round \(round): \(error)")
        }
    }
}
