import SqueezeZMQ

/// The segments frame of `workRef` and `verify` (docs/protocol.md, "Composite sources"): for
/// each block whose source is composite, in order, its segment list.
extension WireCodec {
    /// Most segments one message may carry, over all its blocks.
    static let maxSegments = 1 << 20
    /// Longest run of inline bytes (a tar header with a long pax record stays far below).
    static let maxSegmentBytes = 1 << 20

    private static let bytesSegment: UInt8 = 0
    private static let zerosSegment: UInt8 = 1
    private static let fileSegment: UInt8 = 2

    static func encodeSegments(_ lists: [[RefSegment]]) -> [UInt8] {
        var writer = ByteWriter(capacity: lists.reduce(0) { $0 + 4 + $1.count * 64 })
        for list in lists {
            writer.write(UInt32(list.count))
            for segment in list {
                switch segment {
                case .bytes(let bytes):
                    writer.write(bytesSegment)
                    writeBytes(bytes, to: &writer)
                case .zeros(let count):
                    writer.write(zerosSegment)
                    writer.write(count)
                case .file(let path, let size, let seconds, let nanoseconds, let inode, let offset, let length):
                    writer.write(fileSegment)
                    writeBytes(path, to: &writer)
                    writer.write(size)
                    writer.write(seconds)
                    writer.write(nanoseconds)
                    writer.write(inode)
                    writer.write(offset)
                    writer.write(length)
                }
            }
        }
        return writer.bytes
    }

    /// Reads one segment list per entry of `lengths`, each adding up to exactly its length.
    static func segments(_ frame: ZMQFrame, lengths: [Int]) throws(ProtocolError) -> [[RefSegment]] {
        guard frame.count <= ProtocolLimits.maxSegmentsFrame else {
            throw .oversized("segments frame", size: frame.count, limit: ProtocolLimits.maxSegmentsFrame)
        }
        var reader = ByteReader(frame)
        var lists: [[RefSegment]] = []
        var total = 0
        for (block, length) in lengths.enumerated() {
            let count = Int(try reader.read(UInt32.self, "segment count"))
            total += count
            guard total <= maxSegments else { throw .tooMany("segments", count: total, limit: maxSegments) }
            var list: [RefSegment] = []
            list.reserveCapacity(min(count, 4096))
            var sum = 0
            for _ in 0..<count {
                let kind = try reader.read(UInt8.self, "segment kind")
                let segment: RefSegment
                switch kind {
                case bytesSegment:
                    segment = .bytes(try readBytes(&reader, limit: maxSegmentBytes, "segment bytes"))
                case zerosSegment:
                    segment = .zeros(try reader.read(UInt32.self, "zero count"))
                case fileSegment:
                    let path = try path(&reader, "segment path")
                    let size = try reader.read(UInt64.self, "segment file size")
                    let seconds = try reader.read(Int64.self, "segment mtime seconds")
                    let nanoseconds = try reader.read(Int64.self, "segment mtime nanoseconds")
                    let inode = try reader.read(UInt64.self, "segment inode")
                    let offset = try reader.read(UInt64.self, "segment offset")
                    let length = try reader.read(UInt32.self, "segment length")
                    guard (0...999_999_999).contains(nanoseconds) else { throw .malformed("mtime nanoseconds \(nanoseconds)") }
                    // Checked here so that no later sum can overflow: the read lies inside the file.
                    guard offset <= size, UInt64(length) <= size - offset else {
                        throw .malformed("segment \(offset)+\(length) outside a file of \(size) bytes")
                    }
                    segment = .file(path: path, size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, inode: inode, offset: offset, length: length)
                default:
                    throw .malformed("segment kind \(kind)")
                }
                // Each segment is at most 4 GiB and the sum stops at the block's length.
                sum += segment.length
                guard sum <= length else { throw .malformed("block \(block)'s segments pass its \(length) bytes") }
                list.append(segment)
            }
            guard sum == length else { throw .malformed("block \(block)'s segments make \(sum) of its \(length) bytes") }
            lists.append(list)
        }
        try reader.expectEnd("segments frame")
        return lists
    }
}
