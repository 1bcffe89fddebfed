import CSqueezeDeflate
import SqueezeGzip
import Testing

/// The walk that finds a deflate stream's final block (what lets libdeflate's output be
/// continued inside one member).
struct DeflateEndTests {
    private func ends(_ bytes: [UInt8]) -> (header: UInt64, end: UInt64)? {
        var ends = squeeze_deflate_ends()
        let status = bytes.withUnsafeBufferPointer { squeeze_deflate_find_end($0.baseAddress, $0.count, &ends) }
        return status == 0 ? (ends.final_header_bit, ends.end_bit) : nil
    }

    @Test func emptyFixedBlock() {
        // BFINAL=1, BTYPE=01, then the 7-bit end-of-block code: 10 bits.
        #expect(ends([0x03, 0x00])! == (0, 10))
    }

    @Test func storedBlockThenFinalBlock() {
        let stored: [UInt8] = [0x00, 0x05, 0x00, 0xFA, 0xFF] + Array("hello".utf8)
        #expect(ends(stored + [0x03, 0x00])! == (80, 90))
    }

    @Test(arguments: [
        [UInt8](),                                   // nothing
        [0x03],                                      // end-of-block code cut off
        [0x07],                                      // BTYPE 3 is reserved
        [0x01, 0x05, 0x00, 0xFA, 0xFE, 0x68],        // stored NLEN is not the complement
        [0x01, 0x05, 0x00, 0xFA, 0xFF, 0x68],        // stored bytes cut off
        [0x00, 0x00, 0x00, 0xFF, 0xFF],              // no final block
        [0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],        // dynamic header with over-long tables
    ])
    func malformedOrTruncatedStreamsAreRefused(bytes: [UInt8]) {
        #expect(ends(bytes) == nil)
    }

    @Test(arguments: EngineCase.allCases, DataKind.allCases)
    func findsTheEndOfEveryEnginesOutput(engine: EngineCase, kind: DataKind) throws {
        let data = kind.bytes(count: 300_000, seed: 21)
        let block = try compress(data, dictionary: [], isLast: true, with: engine.compressor())
        let found = try #require(ends(block.bytes))
        #expect((found.end + 7) / 8 == UInt64(block.bytes.count))
        #expect(found.header < found.end)
        // The bit found really is a set BFINAL bit.
        #expect(block.bytes[Int(found.header / 8)] >> (found.header % 8) & 1 == 1)
    }

    private func libdeflate(_ data: [UInt8], level: Int) throws -> [UInt8] {
        try compress(data, dictionary: [], isLast: true,
                     with: BlockCompressor(setting: EngineSetting(engine: .libdeflate, level: level))).bytes
    }

    /// The end found is the stream's last bit, on a set BFINAL bit.
    private func expectEndIsLast(_ stream: [UInt8]) {
        guard let found = ends(stream) else {
            Issue.record("no end found in a \(stream.count)-byte stream")
            return
        }
        #expect((found.end + 7) / 8 == UInt64(stream.count))
        #expect(stream[Int(found.header / 8)] >> (found.header % 8) & 1 == 1)
    }

    /// Byte k with probability 2^-(k+1): literal codes as long as deflate allows, past the walk
    /// table's windows (the careful path), between the short codes it takes in runs.
    private func skewed(count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(min(rng.next().trailingZeroBitCount, 40)) }
    }

    @Test(arguments: [1, 2, 6, 9, 12])
    func longCodesAndEveryTruncation(level: Int) throws {
        let stream = try libdeflate(skewed(count: 12_000, seed: UInt64(level)), level: level)
        expectEndIsLast(stream)
        // The last byte holds bits of the final code, so every shorter prefix is cut short.
        for cut in 0..<stream.count {
            #expect(ends(Array(stream.prefix(cut))) == nil, "cut at \(cut)")
        }
    }

    /// Short inputs get fixed-code and stored blocks; random data big ones stored.
    @Test(arguments: [0, 1, 6, 12])
    func shortAndStoredStreams(level: Int) throws {
        let text = DataKind.text.bytes(count: 200, seed: 9)
        let random = DataKind.random.bytes(count: 200, seed: 9)
        for size in 0...200 {
            expectEndIsLast(try libdeflate(Array(text.prefix(size)), level: level))
            expectEndIsLast(try libdeflate(Array(random.prefix(size)), level: level))
        }
        expectEndIsLast(try libdeflate(DataKind.random.bytes(count: 200_000, seed: 9), level: level))
    }

    /// Random bytes and corrupted streams must never read out of bounds or hang.
    @Test func survivesGarbage() throws {
        var rng = SplitMix64(seed: 77)
        let valid = try compress(DataKind.text.bytes(count: 100_000), dictionary: [], isLast: true,
                                 with: EngineCase.libdeflate6.compressor()).bytes
        for round in 0..<3_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0..<2_000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = Array(valid.prefix(Int.random(in: 0...valid.count, using: &rng)))
                if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng) }
            }
            if let found = ends(bytes) {
                #expect((found.end + 7) / 8 <= UInt64(bytes.count))
            }
        }
    }
}
