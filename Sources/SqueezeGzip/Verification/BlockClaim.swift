/// What one compressed block must decode to: the planned length, the CRC-32 the worker
/// claimed (already compared with the source's where the checker read the source), and
/// whether it is its file's last block.
public struct BlockClaim: Sendable, Equatable {
    /// CRC-32 of the uncompressed block, as claimed.
    public var crc: UInt32
    /// Uncompressed length, as planned.
    public var rawLength: Int
    /// The file's last block: it must end the deflate stream; any other must not.
    public var isLast: Bool

    /// A claim from its parts.
    public init(crc: UInt32, rawLength: Int, isLast: Bool) {
        self.crc = crc
        self.rawLength = rawLength
        self.isLast = isLast
    }
}
