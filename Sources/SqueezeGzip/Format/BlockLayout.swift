/// Plans the block boundaries of a file: blocks of `blockSize` bytes, the last may be
/// shorter, and an empty file is exactly one empty block (it still needs a final deflate block).
public struct BlockLayout: Sendable, Equatable {
    /// Deflate's window: the most preceding input a block can reference.
    public static let dictionarySize = 32 * 1024

    /// Size of the file being split.
    public let fileSize: UInt64
    /// Size of every block except possibly the last.
    public let blockSize: Int

    /// Plans blocks for a file of `fileSize` bytes; `blockSize` must be positive.
    public init(fileSize: UInt64, blockSize: Int) {
        precondition(blockSize > 0, "block size must be positive")
        self.fileSize = fileSize
        self.blockSize = blockSize
    }

    /// Number of blocks; at least 1.
    public var count: Int {
        guard fileSize > 0 else { return 1 }
        let size = UInt64(blockSize)
        return Int(fileSize / size + (fileSize % size == 0 ? 0 : 1))
    }

    /// Whether block `index` is the final one (compressed with `isLast: true`).
    public func isLast(_ index: Int) -> Bool {
        index == count - 1
    }

    /// Byte range of block `index` within the file.
    public func range(of index: Int) -> Range<UInt64> {
        precondition((0..<count).contains(index), "block index \(index) out of 0..<\(count)")
        let start = UInt64(index) * UInt64(blockSize)
        return start..<min(start + UInt64(blockSize), fileSize)
    }

    /// Byte range of block `index`'s dictionary: up to 32 KiB immediately before its start.
    public func dictionaryRange(of index: Int) -> Range<UInt64> {
        let start = range(of: index).lowerBound
        return (start - min(start, UInt64(Self.dictionarySize)))..<start
    }
}
