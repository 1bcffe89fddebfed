import SqueezeGzip
import Testing

struct GzipIndexTests {
    private static func index(_ bytes: [UInt8], spacing: Int = GzipIndex.windowSize, piece: Int = 1 << 20) throws -> GzipIndex {
        let builder = try GzipIndexBuilder(spacing: spacing)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + piece, bytes.count)
            try bytes[offset..<end].withUnsafeBytes { try builder.feed($0) }
            offset = end
        }
        return try builder.finish()
    }

    private static func member(_ data: [UInt8], level: Int = 6) throws -> [UInt8] {
        try GzipMember.compress(data, blockSize: 65_536, setting: LevelTable.setting(forLevel: level), header: GzipMemberTests.header)
    }

    @Test("points: one where each member's data starts, without a window; the rest a spacing apart, each with the 32 KiB before it", arguments: [1, 4096, 1 << 20])
    func points(piece: Int) throws {
        let first = DataKind.text.bytes(count: 700_000)
        let second = DataKind.text.bytes(count: 300_000, seed: 7)
        let gzip = try Self.member(first) + Self.member(second, level: 1)
        let index = try Self.index(gzip, spacing: 100_000, piece: piece)
        let whole = first + second
        #expect(index.compressedSize == UInt64(gzip.count))
        #expect(index.uncompressedSize == UInt64(whole.count))
        #expect(index.points.first == GzipIndexPoint(compressedOffset: UInt64(GzipMemberTests.header.encoded().count), uncompressedOffset: 0, bits: 0, window: nil))
        let starts = index.points.filter { $0.window == nil }.map(\.uncompressedOffset)
        #expect(starts == [0, UInt64(first.count)])
        #expect(index.points.count >= 8, "\(index.points.count) points")
        for (previous, point) in zip(index.points, index.points.dropFirst()) {
            #expect(point.compressedOffset > previous.compressedOffset && point.uncompressedOffset > previous.uncompressedOffset)
            if point.window != nil { #expect(point.uncompressedOffset - previous.uncompressedOffset >= 100_000) }
        }
        for point in index.points {
            guard let window = point.window else { continue }
            let end = Int(point.uncompressedOffset)
            #expect(window.count == GzipIndex.windowSize)
            #expect(Array(window.suffix(min(end, window.count))) == Array(whole[max(0, end - window.count)..<end]))
        }
    }

    @Test("the file's bytes round-trip; the points' table comes before the windows")
    func roundTrip() throws {
        let gzip = try Self.member(DataKind.text.bytes(count: 400_000))
        let index = try Self.index(gzip)
        let bytes = index.encoded()
        #expect(Array(bytes.prefix(7)) == Array("GZIDX".utf8) + [1, 0])
        let windows = index.points.filter { $0.window != nil }.count
        #expect(bytes.count == 35 + 18 * index.points.count + windows * GzipIndex.windowSize)
        #expect(try GzipIndex.decode(bytes) == index)
    }

    @Test("a damaged or lying index is refused with a reason, never a trap: every truncation, a count too large, points out of order or beyond the sizes")
    func hostileIndexes() throws {
        let good = try Self.index(Self.member(DataKind.text.bytes(count: 200_000))).encoded()
        for length in stride(from: 0, to: good.count, by: 97) {
            #expect(throws: GzipIndexError.self) { try GzipIndex.decode(Array(good.prefix(length))) }
        }
        func patched(_ offset: Int, _ bytes: [UInt8]) -> [UInt8] {
            var copy = good
            copy.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
            return copy
        }
        let cases: [(String, [UInt8])] = [
            ("magic", patched(0, [0x47, 0x5a, 0x49, 0x44, 0x59])),
            ("version", patched(5, [2])),
            ("window size", patched(27, [0, 0x40, 0, 0])),
            ("count", patched(31, [0xff, 0xff, 0xff, 0x7f])),
            ("second point before the first", patched(35 + 18, [0, 0, 0, 0, 0, 0, 0, 0])),
            ("offset beyond the file", patched(35 + 18, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])),
            ("bits", patched(35 + 16, [9])),
            ("data flag", patched(35 + 17, [2])),
            ("bytes after the windows", good + [0]),
        ]
        for (name, bytes) in cases {
            #expect(throws: GzipIndexError.self, "\(name)") { try GzipIndex.decode(bytes) }
        }
    }

    @Test("the builder refuses what gzip -t refuses, and takes zero padding after the last member")
    func damagedInputs() throws {
        let good = try Self.member(DataKind.text.bytes(count: 100_000))
        var crc = good
        crc[crc.count - 8] ^= 1
        for bad in [Array(good.dropLast(3)), crc, good + [0x41], Array("plain".utf8), []] {
            #expect(throws: ZlibError.self) { try Self.index(bad) }
        }
        #expect(try Self.index(good + [0, 0, 0]).compressedSize == UInt64(good.count + 3))
        #expect(throws: ZlibError.self) { try GzipIndexBuilder(spacing: 1000) }
    }
}
