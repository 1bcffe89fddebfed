import SqueezeIO
import SqueezeProtocol

extension SourceSegment {
    /// How a worker is told of it (`RefBlock.segments`, `VerifyReference.segments`).
    var wire: RefSegment {
        switch self {
        case .bytes(let bytes): .bytes(bytes)
        case .zeros(let count): .zeros(UInt32(clamping: count))
        case .file(let path, let stamp, let range):
            .file(path: path.bytes, size: stamp.size, modifiedSeconds: stamp.modifiedSeconds, modifiedNanoseconds: stamp.modifiedNanoseconds,
                  inode: stamp.inode, offset: range.lowerBound, length: UInt32(clamping: range.upperBound - range.lowerBound))
        }
    }
}
