/// One piece named in a `StitchRequest`: which item, attempt and position wrote it, and its length.
public struct StitchPiece: Sendable, Equatable {
    /// The item that held the block.
    public var item: UInt64
    /// The accepted attempt of that item.
    public var attempt: UInt64
    /// The block's position in the item.
    public var position: UInt32
    /// Bytes in the piece.
    public var length: UInt64

    /// Creates a piece reference.
    public init(item: UInt64, attempt: UInt64, position: UInt32, length: UInt64) {
        self.item = item
        self.attempt = attempt
        self.position = position
        self.length = length
    }
}
