import SqueezeZMQ

/// A block of a `verify` item whose bytes travel with it.
public struct InlineVerifyBlock: Sendable, Equatable {
    /// The bytes before the block that primed it (at most 32 KiB; empty without one).
    public var dictionary: ZMQFrame
    /// The block's raw deflate bytes, as the compressing worker sent them.
    public var deflate: ZMQFrame
    /// The planned uncompressed length.
    public var rawLength: Int
    /// Whether it is its file's last block (it must end with a final deflate block).
    public var isLast: Bool

    /// Creates a block.
    public init(dictionary: ZMQFrame, deflate: ZMQFrame, rawLength: Int, isLast: Bool) {
        self.dictionary = dictionary
        self.deflate = deflate
        self.rawLength = rawLength
        self.isLast = isLast
    }
}
