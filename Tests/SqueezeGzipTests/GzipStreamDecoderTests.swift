import SqueezeGzip
import Testing

struct GzipStreamDecoderTests {
    /// Decodes `bytes` with the fast decoder and the strict one, which must agree; returns
    /// what came out, or throws the fast one's error.
    private static func decode(_ bytes: [UInt8], piece: Int, multipleMembers: Bool) throws -> [UInt8] {
        let fast = Result { try decode(bytes, piece: piece, multipleMembers: multipleMembers, strict: false) }
        let strict = Result { try decode(bytes, piece: piece, multipleMembers: multipleMembers, strict: true) }
        #expect((try? fast.get()) == (try? strict.get()), "the fast and the strict decoder disagree")
        return try fast.get()
    }

    /// Feeds `bytes` in pieces of `piece` bytes, then finishes; returns what came out.
    static func decode(_ bytes: [UInt8], piece: Int, multipleMembers: Bool, strict: Bool) throws -> [UInt8] {
        let decoder = try GzipStreamDecoder(multipleMembers: multipleMembers, strict: strict, chunkSize: 4096)
        var output: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + piece, bytes.count)
            try bytes[offset..<end].withUnsafeBytes { try decoder.feed($0) { output.append(contentsOf: $0) } }
            offset = end
        }
        try decoder.finish()
        #expect(decoder.uncompressedBytes == UInt64(output.count))
        return output
    }

    private static func data(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 + seed) &* 2_654_435_761 >> 13) }
    }

    private static func member(_ data: [UInt8]) throws -> [UInt8] {
        try GzipMember.compress(data, blockSize: 65_536, setting: LevelTable.setting(forLevel: 6), header: GzipMemberTests.header)
    }

    @Test("a member decodes to its input whatever the pieces it comes in", arguments: [1, 7, 4096, 1 << 20])
    func goodMember(piece: Int) throws {
        for count in [0, 1, 300_000] {
            let data = Self.data(count)
            #expect(try Self.decode(Self.member(data), piece: piece, multipleMembers: false) == data)
            #expect(try Self.decode(Self.member(data), piece: piece, multipleMembers: true) == data)
        }
    }

    @Test("several members (cat a.gz b.gz) and zero padding after them decode when allowed", arguments: [1, 5, 4096])
    func members(piece: Int) throws {
        let (a, b) = (Self.data(100_000), Self.data(70_001, seed: 9))
        let joined = try Self.member(a) + Self.member([]) + Self.member(b)
        #expect(try Self.decode(joined, piece: piece, multipleMembers: true) == a + b)
        #expect(try Self.decode(joined + [0, 0, 0, 0], piece: piece, multipleMembers: true) == a + b)
        #expect(throws: ZlibError.self) { try Self.decode(joined, piece: piece, multipleMembers: false) }
    }

    @Test("truncation, a flipped CRC or length, trailing garbage, not-gzip and an empty input are refused", arguments: [1, 4096])
    func badInputs(piece: Int) throws {
        let good = try Self.member(Self.data(100_000))
        var crc = good
        crc[crc.count - 8] ^= 1
        var length = good
        length[length.count - 1] ^= 1
        var body = good
        body[body.count / 2] ^= 0x40
        let cases = [Array(good.dropLast(1)), Array(good.prefix(good.count / 2)), crc, length, body,
                     good + [0x41], good + [0, 0, 7], good + [0x1f], Array("hello\n".utf8), []]
        for bad in cases {
            #expect(throws: ZlibError.self) { try Self.decode(bad, piece: piece, multipleMembers: true) }
        }
        for bad in cases + [good + good, good + [0]] {
            #expect(throws: ZlibError.self) { try Self.decode(bad, piece: piece, multipleMembers: false) }
        }
    }

    @Test("messages say what is wrong in gzip's words")
    func messages() throws {
        let good = try Self.member(Self.data(10_000))
        func message(_ bytes: [UInt8]) -> String? {
            do { _ = try Self.decode(bytes, piece: 4096, multipleMembers: true); return nil } catch let error as ZlibError { return error.message } catch { return "\(error)" }
        }
        #expect(message(Array("plain text".utf8)) == "not in gzip format")
        #expect(message(good + Array("junk".utf8)) == "trailing garbage after the last gzip member")
        #expect(message(Array(good.dropLast(3)))?.contains("truncated") == true)
    }
}
