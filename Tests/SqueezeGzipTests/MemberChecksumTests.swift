import SqueezeGzip
import Testing

struct MemberChecksumTests {
    @Test func freshChecksumIsEmpty() {
        let checksum = MemberChecksum()
        #expect(checksum.crc == 0 && checksum.length == 0)
        #expect(checksum.trailer == GzipTrailer(crc: 0, inputLength: 0))
    }

    @Test func appendingBlocksMatchesChecksumOfTheWhole() {
        let data = DataKind.text.bytes(count: 200_000)
        var checksum = MemberChecksum()
        for range in [0..<0, 0..<65_536, 65_536..<65_536, 65_536..<131_072, 131_072..<200_000] {
            checksum.append(crc: CRC32.checksum(Array(data[range])), length: range.count)
        }
        #expect(checksum.crc == CRC32.checksum(data))
        #expect(checksum.length == 200_000)
    }

    @Test func isizeWrapsModulo2To32() {
        // Synthetic blocks: only the lengths matter here, so no 4 GiB buffer is needed.
        var checksum = MemberChecksum()
        let twoGiB = 1 << 31
        for _ in 0..<3 {
            checksum.append(crc: 0x1234_5678, length: twoGiB)
        }
        checksum.append(crc: 0x9ABC_DEF0, length: 7)
        #expect(checksum.length == 3 * (1 << 31) + 7)
        #expect(checksum.trailer.inputLength == checksum.length)
        let isize = Array(checksum.trailer.encoded()[4..<8])
        #expect(isize == [0x07, 0x00, 0x00, 0x80])  // (6 GiB + 7) mod 2^32 = 2^31 + 7
    }
}
