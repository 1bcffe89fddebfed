import SqueezeGzip
import Testing

struct GzipTrailerTests {
    @Test func encodesCRCAndISIZELittleEndian() {
        let trailer = GzipTrailer(crc: 0xDEAD_BEEF, inputLength: 0x1_0000_0005)
        #expect(trailer.encoded() == [0xEF, 0xBE, 0xAD, 0xDE, 0x05, 0x00, 0x00, 0x00])
    }

    @Test func zeroLength() {
        #expect(GzipTrailer(crc: 0, inputLength: 0).encoded() == [UInt8](repeating: 0, count: 8))
    }
}
