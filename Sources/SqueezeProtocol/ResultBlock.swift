import SqueezeZMQ

/// One compressed block returned by a worker, in the same position as in its assignment.
public struct ResultBlock: Sendable, Equatable {
    /// CRC-32 of the block's uncompressed data.
    public var crc: UInt32
    /// Uncompressed length, checked against the assignment.
    public var rawLength: Int
    /// Raw deflate bytes: on the coordinator, the received frame itself, written to the output
    /// from where libzmq put it.
    public var bytes: ZMQFrame

    /// Creates a result block.
    public init(crc: UInt32, rawLength: Int, bytes: ZMQFrame) {
        self.crc = crc
        self.rawLength = rawLength
        self.bytes = bytes
    }
}
