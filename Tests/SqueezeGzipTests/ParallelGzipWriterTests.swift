import SqueezeGzip
import Testing

struct ParallelGzipWriterTests {
    private static func data(_ count: Int) -> [UInt8] {
        // Compressible but not trivially: words from a small alphabet with a drifting pattern.
        (0..<count).map { UInt8(ascii: "a") + UInt8(truncatingIfNeeded: ($0 / 7 &* 31 ^ $0 >> 9) % 23) }
    }

    /// Streams `data` through a writer in writes of `piece` bytes.
    private static func stream(_ data: [UInt8], threads: DeflateThreads, blockSize: Int, piece: Int, header: GzipHeader) throws -> [UInt8] {
        var output: [UInt8] = []
        let writer = try ParallelGzipWriter(threads: threads, blockSize: blockSize, header: header) { output.append(contentsOf: $0) }
        var offset = 0
        while offset < data.count {
            let end = min(offset + piece, data.count)
            try data[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
        }
        #expect(try writer.finish().length == UInt64(data.count))
        #expect(writer.bytesOut == UInt64(output.count))
        return output
    }

    @Test("the same bytes as GzipMember.compress, for any thread count, write size and length",
          arguments: [0, 1, 65_535, 65_536, 65_537, 400_000])
    func sameAsMember(count: Int) throws {
        let data = Self.data(count)
        let header = GzipHeader(fileName: Array("x".utf8), modificationTime: 7, level: 6)
        for level in [1, 6] {
            let setting = try LevelTable.setting(forLevel: level)
            let expected = try GzipMember.compress(data, blockSize: 65_536, setting: setting, header: header)
            for threadCount in [1, 3] {
                let threads = try DeflateThreads(setting: setting, count: threadCount)
                defer { threads.shutdown() }
                for piece in [1000, 65_536, 1 << 20] {
                    let streamed = try Self.stream(data, threads: threads, blockSize: 65_536, piece: piece, header: header)
                    #expect(streamed == expected, "level \(level), \(threadCount) threads, writes of \(piece)")
                }
            }
            #expect(try GzipDecoder.decompress(expected) == data)
        }
    }

    @Test("an output that fails stops the stream with its error")
    func failingOutput() throws {
        struct Full: Error {}
        let threads = try DeflateThreads(setting: LevelTable.setting(forLevel: 6), count: 2)
        defer { threads.shutdown() }
        var calls = 0
        let writer = try ParallelGzipWriter(threads: threads, blockSize: 65_536, header: GzipMemberTests.header) { _ in
            calls += 1
            if calls > 2 { throw Full() }
        }
        let data = Self.data(2_000_000)
        #expect(throws: Full.self) {
            try data.withUnsafeBytes { try writer.write($0) }
            try writer.finish()
        }
    }
}
