import Foundation
import SqueezeGzip
import Testing

struct GzipDecoderTests {
    static let header = GzipHeader(fileName: nil, modificationTime: 0, level: 6)

    @Test func concatenatedMembersDecodeToTheConcatenation() throws {
        let first = DataKind.text.bytes(count: 70_000, seed: 1)
        let second = DataKind.random.bytes(count: 1_000, seed: 2)
        let empty: [UInt8] = []
        let stream = try [first, empty, second].flatMap {
            try GzipMember.compress($0, blockSize: 65_536, setting: LevelTable.setting(forLevel: 6), header: Self.header)
        }
        #expect(try GzipDecoder.decompress(stream) == first + second)
    }

    @Test func decodesSystemGzipOutput() throws {
        let data = DataKind.text.bytes(count: 300_000, seed: 3)
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("squeeze-gzip-\(UUID().uuidString).txt")
        try Data(data).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let compressed = try SystemGzip.run(["-c", "-9", url.path])
        #expect(compressed.status == 0)
        #expect(try GzipDecoder.decompress(compressed.stdout) == data)
    }

    @Test func corruptCRCIsADataError() throws {
        var member = try GzipMember.compress(DataKind.text.bytes(count: 5_000), blockSize: 65_536,
                                             setting: LevelTable.setting(forLevel: 6), header: Self.header)
        member[member.count - 8] ^= 0xFF  // first CRC byte of the trailer
        expectZlibError(code: -3) { _ = try GzipDecoder.decompress(member) }  // Z_DATA_ERROR
    }

    @Test func truncatedStreamIsABufferError() throws {
        let member = try GzipMember.compress(DataKind.text.bytes(count: 5_000), blockSize: 65_536,
                                             setting: LevelTable.setting(forLevel: 6), header: Self.header)
        expectZlibError(code: -5) { _ = try GzipDecoder.decompress(Array(member.dropLast(3))) }
        expectZlibError(code: -5) { _ = try GzipDecoder.decompress([]) }  // Z_BUF_ERROR
    }

    private func expectZlibError(code: Int32, sourceLocation: SourceLocation = #_sourceLocation,
                                 _ body: () throws -> Void) {
        #expect(sourceLocation: sourceLocation) {
            try body()
        } throws: { error in
            guard let error = error as? ZlibError else { return false }
            return error.operation == "inflate" && error.code == code
        }
    }
}
