/// What a sealed `.gz` is, read before it is published: what a journal records so that a
/// restarted job can tell its own output from anything else at that path.
public struct SealedFacts: Sendable, Equatable {
    /// Bytes in the file.
    public var size: UInt64
    /// Its inode; the rename keeps it, so the published file has the same one.
    public var inode: UInt64
    /// The CRC-32 of the uncompressed data, from the gzip trailer.
    public var crc: UInt32

    /// Creates facts from their parts.
    public init(size: UInt64, inode: UInt64, crc: UInt32) {
        self.size = size
        self.inode = inode
        self.crc = crc
    }
}
