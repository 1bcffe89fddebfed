/// A place in a gzip file where decoding can start: a deflate block boundary (or the start
/// of a member's deflate data) and what decoding from there needs.
public struct GzipIndexPoint: Sendable, Equatable {
    /// The first whole byte of compressed data after the boundary.
    public var compressedOffset: UInt64
    /// Where the boundary is in the uncompressed data (all members together).
    public var uncompressedOffset: UInt64
    /// Bits of the byte before `compressedOffset` that belong to the next block (0-7).
    public var bits: UInt8
    /// The 32 KiB of uncompressed data before the point, which the data after it may refer
    /// back to; nil where nothing before can be referred to (a member's start).
    public var window: [UInt8]?

    /// A point; `window`, when given, holds exactly the index's window size.
    public init(compressedOffset: UInt64, uncompressedOffset: UInt64, bits: UInt8, window: [UInt8]?) {
        self.compressedOffset = compressedOffset
        self.uncompressedOffset = uncompressedOffset
        self.bits = bits
        self.window = window
    }
}
