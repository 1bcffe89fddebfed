/// One compressed block as it travels back from a worker.
public struct CompressedBlock: Sendable, Equatable {
    /// Raw deflate bytes: byte-aligned, ending in a sync-flush marker unless it is the last block.
    public var bytes: [UInt8]
    /// CRC-32 of the uncompressed block.
    public var crc: UInt32
    /// Number of uncompressed bytes in the block.
    public var rawLength: Int

    /// Creates a block from its compressed bytes, the CRC-32 and length of its input.
    public init(bytes: [UInt8], crc: UInt32, rawLength: Int) {
        self.bytes = bytes
        self.crc = crc
        self.rawLength = rawLength
    }
}
