import SqueezeGzip
import Testing

struct GzipCheckerTests {
    /// Feeds `bytes` in pieces of `piece` bytes, then finishes; returns the uncompressed count.
    private static func check(_ bytes: [UInt8], piece: Int) throws -> UInt64 {
        let checker = try GzipChecker()
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + piece, bytes.count)
            try bytes[offset..<end].withUnsafeBytes { try checker.feed($0) }
            offset = end
        }
        try checker.finish()
        return checker.uncompressedBytes
    }

    private static func member(_ count: Int) throws -> [UInt8] {
        let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        return try GzipMember.compress(data, blockSize: 65_536, setting: LevelTable.setting(forLevel: 6), header: GzipMemberTests.header)
    }

    @Test("a member passes whatever the pieces it comes in, with its length counted", arguments: [1, 7, 4096, 1 << 20])
    func goodMember(piece: Int) throws {
        #expect(try Self.check(Self.member(300_000), piece: piece) == 300_000)
        #expect(try Self.check(Self.member(0), piece: piece) == 0)
    }

    @Test("a truncated member, a flipped CRC or length, a second member, trailing garbage and an empty file are refused", arguments: [1, 4096])
    func badFiles(piece: Int) throws {
        let good = try Self.member(100_000)
        var crc = good
        crc[crc.count - 8] ^= 1
        var length = good
        length[length.count - 1] ^= 1
        for bad in [Array(good.dropLast(1)), Array(good.prefix(good.count / 2)), crc, length, good + good, good + [0], []] {
            #expect(throws: ZlibError.self) { try Self.check(bad, piece: piece) }
        }
    }
}
