/// An index of a gzip file in the format of indexed_gzip's `GZIDX` files (version 1), which
/// Python's indexed_gzip (`IndexedGzipFile(index_file=)`) and rapidgzip (`--import-index`)
/// read: the file's sizes, then its points, then the windows of the points that have one.
/// Integers are little-endian.
public struct GzipIndex: Sendable, Equatable {
    /// The format's magic and the version written.
    static let magic = Array("GZIDX".utf8)
    static let version: UInt8 = 1
    /// Bytes before the first point: magic, version, flags, two sizes, spacing, window, count.
    static let headerSize = 5 + 1 + 1 + 8 + 8 + 4 + 4 + 4
    /// Bytes per point in the table.
    static let pointSize = 8 + 8 + 1 + 1
    /// Deflate's window: every point's window holds this much.
    public static let windowSize = 32 << 10

    /// Bytes of the gzip file the index describes (readers check it against the file).
    public var compressedSize: UInt64
    /// Bytes it decompresses to.
    public var uncompressedSize: UInt64
    /// Uncompressed bytes between points (at least; points fall on block boundaries).
    public var spacing: UInt32
    /// The points, in order of offset.
    public var points: [GzipIndexPoint]

    /// An index from its parts.
    public init(compressedSize: UInt64, uncompressedSize: UInt64, spacing: UInt32, points: [GzipIndexPoint]) {
        self.compressedSize = compressedSize
        self.uncompressedSize = uncompressedSize
        self.spacing = spacing
        self.points = points
    }

    /// The index file's bytes.
    public func encoded() -> [UInt8] {
        let windows = points.filter { $0.window != nil }.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize + points.count * Self.pointSize + windows * Self.windowSize)
        bytes += Self.magic
        bytes += [Self.version, 0]
        Self.append(compressedSize, to: &bytes)
        Self.append(uncompressedSize, to: &bytes)
        Self.append(spacing, to: &bytes)
        Self.append(UInt32(Self.windowSize), to: &bytes)
        Self.append(UInt32(truncatingIfNeeded: points.count), to: &bytes)
        for point in points {
            Self.append(point.compressedOffset, to: &bytes)
            Self.append(point.uncompressedOffset, to: &bytes)
            bytes += [point.bits, point.window == nil ? 0 : 1]
        }
        for case let window? in points.map(\.window) { bytes += window }
        return bytes
    }

    /// Reads an index file; throws `GzipIndexError` for anything that is not a well-formed
    /// version 0 or 1 index whose points lie in order within its sizes.
    public static func decode(_ bytes: [UInt8]) throws(GzipIndexError) -> GzipIndex {
        var reader = Reader(bytes: bytes)
        guard try reader.take(magic.count) == magic else { throw GzipIndexError("not a GZIDX index") }
        let version = try reader.byte()
        guard version <= Self.version else { throw GzipIndexError("GZIDX version \(version), only 0 and 1 are known") }
        _ = try reader.byte()
        let compressedSize = try reader.integer(UInt64.self)
        let uncompressedSize = try reader.integer(UInt64.self)
        let spacing = try reader.integer(UInt32.self)
        let window = try reader.integer(UInt32.self)
        guard window == UInt32(windowSize) else { throw GzipIndexError("window of \(window) bytes, \(windowSize) expected") }
        guard spacing >= window else { throw GzipIndexError("spacing \(spacing) is below the window size") }
        let count = Int(try reader.integer(UInt32.self))
        // Each point takes at least its table entry: a count beyond what is left is a lie.
        guard count <= (bytes.count - reader.offset) / (pointSize - (version == 0 ? 1 : 0)) else {
            throw GzipIndexError("\(count) points, more than the file holds")
        }
        var points: [GzipIndexPoint] = []
        var hasWindow: [Bool] = []
        points.reserveCapacity(count)
        for position in 0..<count {
            let compressed = try reader.integer(UInt64.self)
            let uncompressed = try reader.integer(UInt64.self)
            let bits = try reader.byte()
            let flag = version >= 1 ? try reader.byte() : (position == 0 ? 0 : 1)
            guard bits < 8, flag <= 1 else { throw GzipIndexError("point \(position): bit count \(bits) or data flag \(flag) out of range") }
            guard compressed <= compressedSize, uncompressed <= uncompressedSize, bits == 0 || compressed > 0 else {
                throw GzipIndexError("point \(position) lies beyond the file's sizes")
            }
            if let last = points.last, compressed < last.compressedOffset || uncompressed < last.uncompressedOffset {
                throw GzipIndexError("point \(position) is out of order")
            }
            points.append(GzipIndexPoint(compressedOffset: compressed, uncompressedOffset: uncompressed, bits: bits, window: nil))
            hasWindow.append(flag == 1)
        }
        for position in points.indices where hasWindow[position] {
            points[position].window = try reader.take(windowSize)
        }
        guard reader.offset == bytes.count else { throw GzipIndexError("\(bytes.count - reader.offset) bytes after the last window") }
        return GzipIndex(compressedSize: compressedSize, uncompressedSize: uncompressedSize, spacing: spacing, points: points)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Reads an index's fields in order, each checked against what is left.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ count: Int) throws(GzipIndexError) -> [UInt8] {
            guard count <= bytes.count - offset else { throw GzipIndexError("truncated at byte \(offset)") }
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }

        mutating func byte() throws(GzipIndexError) -> UInt8 {
            try take(1)[0]
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(GzipIndexError) -> T {
            let field = try take(MemoryLayout<T>.size)
            return T(littleEndian: field.withUnsafeBytes { $0.loadUnaligned(as: T.self) })
        }
    }
}
