import SqueezeGzip
import Testing

struct GzipHeaderTests {
    /// A name that is not valid UTF-8 (0xFF, 0xFE, lone continuation byte 0x80).
    static let rawName: [UInt8] = [0x66, 0xFF, 0xFE, 0x80, 0x2E, 0x74, 0x78, 0x74]

    @Test(arguments: [(1, UInt8(4)), (6, UInt8(0)), (9, UInt8(2)), (0, UInt8(0))])
    func fieldsWithFileName(level: Int, expectedXFL: UInt8) throws {
        let header = GzipHeader(fileName: Self.rawName, modificationTime: 0x1234_5678, level: level)
        let bytes = header.encoded()
        #expect(bytes.count == 10 + Self.rawName.count + 1)
        #expect(Array(bytes[0..<3]) == [0x1F, 0x8B, 8])  // ID1 ID2 CM=deflate
        #expect(bytes[3] == 0x08)  // FLG: only FNAME
        #expect(Array(bytes[4..<8]) == [0x78, 0x56, 0x34, 0x12])  // MTIME little-endian
        #expect(bytes[8] == expectedXFL)
        #expect(bytes[9] == 3)  // OS = Unix
        #expect(Array(bytes[10..<(10 + Self.rawName.count)]) == Self.rawName)
        #expect(bytes.last == 0)
    }

    @Test func noFileNameMeansNoFlagAndTenBytes() {
        let bytes = GzipHeader(fileName: nil, modificationTime: 0, level: 6).encoded()
        #expect(bytes == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
    }

    @Test func nameIsCutAtAnEmbeddedNUL() {
        let bytes = GzipHeader(fileName: [0x61, 0x00, 0x62], modificationTime: 0, level: 6).encoded()
        #expect(Array(bytes[10...]) == [0x61, 0x00])
    }

    @Test func systemGzipAcceptsARawByteName() throws {
        let data = DataKind.text.bytes(count: 5_000)
        let header = GzipHeader(fileName: Self.rawName, modificationTime: 1_700_000_000, level: 9)
        let member = try GzipMember.compress(data, blockSize: 65_536, setting: LevelTable.setting(forLevel: 9), header: header)
        try SystemGzip.expectValid(member, original: data)
    }
}
