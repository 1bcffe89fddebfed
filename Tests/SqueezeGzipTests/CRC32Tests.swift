import SqueezeGzip
import Testing

struct CRC32Tests {
    @Test func knownCheckValue() {
        // The standard CRC-32 check value for "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func seedContinuesAChecksum() {
        let data = DataKind.random.bytes(count: 10_000)
        let whole = CRC32.checksum(data)
        let head = CRC32.checksum(Array(data[..<3_000]))
        #expect(CRC32.checksum(Array(data[3_000...]), seed: head) == whole)
        // An empty continuation must keep the seed rather than reset to 0.
        #expect(CRC32.checksum([UInt8](), seed: whole) == whole)
    }

    @Test(arguments: [0, 1, 100, 32_768, 65_535, 99_999, 100_000])
    func combineEqualsChecksumOfConcatenation(split: Int) {
        let data = DataKind.text.bytes(count: 100_000)
        let first = CRC32.checksum(Array(data[..<split]))
        let second = CRC32.checksum(Array(data[split...]))
        let combined = CRC32.combine(first, second, secondLength: Int64(data.count - split))
        #expect(combined == CRC32.checksum(data))
    }

    @Test func rawBufferAndArrayAgree() {
        let data = DataKind.random.bytes(count: 4_097)
        let viaBuffer = data.withUnsafeBytes { CRC32.checksum($0, seed: 7) }
        #expect(viaBuffer == CRC32.checksum(data, seed: 7))
    }
}

/// The 256-bit folding against ISA-L and a bit-at-a-time reference: every length around its
/// edges (the 256-byte minimum, the 128-byte stride, the 16-byte tail), every start alignment,
/// and seeds that are not zero.
struct CRC32FoldingTests {
    /// The CRC-32 one bit at a time: slow, and independent of both fast implementations.
    static func reference(_ bytes: ArraySlice<UInt8>, seed: UInt32) -> UInt32 {
        var crc = ~seed
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func foldingRunsOnThisMachine() {
        // These machines have AVX2 and VPCLMULQDQ; elsewhere the tests below still hold,
        // through ISA-L alone.
        let flags = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let capable = flags.contains(" vpclmulqdq") && flags.contains(" avx2")
        #expect(CRC32.folds256 == capable)
    }

    @Test func edgesAgainstTheReference() {
        var generator = SplitMix64(seed: 0xC0C0)
        let data = (0..<1_200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for count in Array(0...40) + Array(240...420) + [511, 512, 513, 1_023, 1_024, 1_025, 1_151] {
            for offset in [0, 1, 7, 31] {
                let slice = data[offset..<(offset + count)]
                let seed = UInt32(truncatingIfNeeded: count &* 2_654_435_761)
                let fast = slice.withUnsafeBytes { CRC32.checksum($0, seed: seed) }
                #expect(fast == Self.reference(slice, seed: seed), "length \(count) at offset \(offset)")
            }
        }
    }

    @Test func randomLengthsAgainstISAL() {
        var generator = SplitMix64(seed: 0xFEED)
        let data = (0..<(1 << 20) + 64).map { _ in UInt8.random(in: 0...255, using: &generator) }
        data.withUnsafeBytes { all in
            for _ in 0..<2_000 {
                let offset = Int.random(in: 0..<64, using: &generator)
                let count = Int.random(in: 0...(1 << 20), using: &generator)
                let seed = UInt32.random(in: 0...UInt32.max, using: &generator)
                let bytes = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + count)])
                #expect(CRC32.checksum(bytes, seed: seed) == CRC32.checksumISAL(bytes, seed: seed), "length \(count) at offset \(offset)")
            }
        }
    }
}
