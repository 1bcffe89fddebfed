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
