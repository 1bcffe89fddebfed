/// One run of a block's source when the source is composite (a tar stream laid out over a
/// tree, `--tar`): bytes sent as they are (a tar header), zeros (padding, the archive's end),
/// or a range of a file the worker reads itself, checked against the scan's stamp. A block's
/// segments, in order, are its dictionary and then its data.
public enum RefSegment: Sendable, Equatable {
    /// These bytes.
    case bytes([UInt8])
    /// This many zero bytes.
    case zeros(UInt32)
    /// `length` bytes at `offset` of the file at `path` (absolute), whose scan stamp is `size`,
    /// mtime and `inode`.
    case file(path: [UInt8], size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, inode: UInt64, offset: UInt64, length: UInt32)

    /// Bytes it contributes.
    public var length: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .zeros(let count): Int(count)
        case .file(_, _, _, _, _, _, let length): Int(length)
        }
    }
}
