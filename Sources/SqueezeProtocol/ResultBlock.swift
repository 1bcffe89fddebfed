/// One compressed block returned by a worker, in the same position as in its assignment.
public struct ResultBlock: Sendable, Equatable {
    /// CRC-32 of the block's uncompressed data.
    public var crc: UInt32
    /// Uncompressed length, checked against the assignment.
    public var rawLength: Int
    /// Raw deflate bytes.
    public var bytes: [UInt8]

    /// Creates a result block.
    public init(crc: UInt32, rawLength: Int, bytes: [UInt8]) {
        self.crc = crc
        self.rawLength = rawLength
        self.bytes = bytes
    }
}
