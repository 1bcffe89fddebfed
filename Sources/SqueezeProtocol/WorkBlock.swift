import SqueezeZMQ

/// One block to compress: its place in the job, and its bytes preceded by its dictionary.
public struct WorkBlock: Sendable, Equatable {
    /// Index of the file within the job.
    public var file: UInt32
    /// Index of the block within the file.
    public var index: UInt32
    /// How many leading bytes of `bytes` are the preset dictionary (up to 32 KiB).
    public var dictionaryLength: Int
    /// Whether this is the file's last block (ended with Z_FINISH).
    public var isLast: Bool
    /// Dictionary followed by the block's data: one frame, sent and received without a copy.
    /// On the coordinator it is a range of the item's read buffer (frames of consecutive
    /// blocks overlap by the dictionary); on a worker, the received message.
    public var bytes: ZMQFrame

    /// Creates a block.
    public init(file: UInt32, index: UInt32, dictionaryLength: Int, isLast: Bool, bytes: ZMQFrame) {
        self.file = file
        self.index = index
        self.dictionaryLength = dictionaryLength
        self.isLast = isLast
        self.bytes = bytes
    }

    /// Bytes of data to compress, excluding the dictionary.
    public var dataLength: Int { bytes.count - dictionaryLength }
}
