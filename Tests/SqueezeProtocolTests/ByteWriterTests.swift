@testable import SqueezeProtocol
import SqueezeZMQ
import Testing

/// `ByteWriter` grows its own buffer: what it holds must be the fields in order, little-endian,
/// however many times it grew, and read back field for field.
struct ByteWriterTests {
    @Test("fields written past its capacity, many times over, are the bytes in order, little-endian, and read back")
    func growsAndKeepsEveryByte() throws {
        var writer = ByteWriter(capacity: 1)
        var expected: [UInt8] = []
        var random = SplitMix64(seed: 41)
        var values: [(UInt64, UInt32, UInt8, [UInt8])] = []
        for round in 0..<500 {
            let wide = random.next(), narrow = UInt32(truncatingIfNeeded: random.next()), byte = UInt8(truncatingIfNeeded: round)
            let raw = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
            values.append((wide, narrow, byte, raw))
            writer.write(wide)
            writer.write(narrow)
            writer.write(byte)
            writer.write(raw)
            for shift in stride(from: 0, to: 64, by: 8) { expected.append(UInt8(truncatingIfNeeded: wide >> UInt64(shift))) }
            for shift in stride(from: 0, to: 32, by: 8) { expected.append(UInt8(truncatingIfNeeded: narrow >> UInt32(shift))) }
            expected.append(byte)
            expected += raw
        }
        #expect(writer.count == expected.count)
        #expect(writer.bytes == expected)
        var reader = ByteReader(ZMQFrame(writer.bytes))
        for (wide, narrow, byte, raw) in values {
            #expect(try reader.read(UInt64.self, "wide") == wide)
            #expect(try reader.read(UInt32.self, "narrow") == narrow)
            #expect(try reader.read(UInt8.self, "byte") == byte)
            #expect(try reader.readBytes(raw.count, "raw") == raw)
        }
        #expect(reader.remaining == 0)
        #expect(throws: ProtocolError.truncated("one more")) { try reader.read(UInt8.self, "one more") }
    }

    @Test("a writer given nothing holds nothing")
    func empty() {
        var writer = ByteWriter()
        writer.write([])
        #expect(writer.count == 0)
        #expect(writer.bytes.isEmpty)
    }
}
