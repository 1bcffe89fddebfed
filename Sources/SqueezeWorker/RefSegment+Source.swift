import SqueezeIO
import SqueezeProtocol

extension RefSegment {
    /// What to read for it: the file's range is checked against the stamp the message carried.
    var source: SourceSegment {
        switch self {
        case .bytes(let bytes): .bytes(bytes)
        case .zeros(let count): .zeros(Int(count))
        case .file(let path, let size, let seconds, let nanoseconds, let inode, let offset, let length):
            .file(
                path: BytePath(bytes: path),
                stamp: FileStamp(size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, device: 0, inode: inode, permissions: 0),
                range: offset..<offset + UInt64(length))
        }
    }
}
