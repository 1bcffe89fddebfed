/// The 8-byte gzip member trailer: CRC-32 and ISIZE of the uncompressed data.
public struct GzipTrailer: Sendable, Equatable {
    /// Encoded length in bytes.
    public static let size = 8

    /// CRC-32 of the whole uncompressed member.
    public var crc: UInt32
    /// Full uncompressed length; only its low 32 bits are stored (ISIZE).
    public var inputLength: UInt64

    /// Creates a trailer from the member's CRC-32 and uncompressed length.
    public init(crc: UInt32, inputLength: UInt64) {
        self.crc = crc
        self.inputLength = inputLength
    }

    /// CRC-32 then ISIZE (`inputLength` mod 2^32), both little-endian: 8 bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: inputLength).littleEndian) {
            bytes.append(contentsOf: $0)
        }
        return bytes
    }
}
