/// Appends little-endian integers and byte strings to a growing buffer.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }
}
