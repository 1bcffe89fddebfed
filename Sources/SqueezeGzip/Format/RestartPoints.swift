/// Where decoding a member can start without a window, as its `GzipOffsetTable` says, checked
/// against the header and the file's size but not yet against the data: a decoder still proves
/// each point as it decodes (see `ParallelGzipDecoder`).
public struct RestartPoints: Sendable, Equatable {
    /// File offset of each span's first byte; the first is where the member's deflate data starts.
    public var offsets: [UInt64]
    /// Uncompressed bytes of every span but the last.
    public var spanBytes: UInt64

    /// What a header says about restart points.
    public enum Lookup: Sendable, Equatable {
        /// No table (a foreign file, a member of one block).
        case absent
        /// A table whose shape holds.
        case found(RestartPoints)
        /// A table that cannot be right, and why (one line).
        case damaged(String)
    }

    /// The FLG bit announcing an extra field, and where that field starts.
    private static let extraFlag: UInt8 = 0x04
    private static let extraStart = 12

    /// Reads the table in `header` (a member's first bytes, holding at least its whole header)
    /// whose deflate data starts at file offset `dataStart`, in a file of `fileSize` bytes.
    public static func read(header: [UInt8], dataStart: UInt64, fileSize: UInt64) -> Lookup {
        guard header.count >= extraStart, header[3] & extraFlag != 0 else { return .absent }
        let extraLength = Int(header[10]) | Int(header[11]) << 8
        guard header.count >= extraStart + extraLength else { return .absent }
        var position = extraStart
        let end = extraStart + extraLength
        while position + 4 <= end {
            let length = Int(header[position + 2]) | Int(header[position + 3]) << 8
            let isOurs = Array(header[position..<(position + 2)]) == GzipOffsetTable.identifier
            guard position + 4 + length <= end else {
                return isOurs ? .damaged("the offset table is truncated (\(length) bytes announced, \(end - position - 4) present)") : .absent
            }
            if isOurs {
                return points(Array(header[(position + 4)..<(position + 4 + length)]), dataStart: dataStart, fileSize: fileSize)
            }
            position += 4 + length
        }
        return .absent
    }

    /// The points of a table's data, or why they cannot be right.
    private static func points(_ data: [UInt8], dataStart: UInt64, fileSize: UInt64) -> Lookup {
        guard let version = data.first else { return .damaged("the offset table is empty") }
        guard version == GzipOffsetTable.version else { return .damaged("offset table version \(version), only \(GzipOffsetTable.version) is known") }
        guard data.count >= GzipOffsetTable.fixedBytes, (data.count - GzipOffsetTable.fixedBytes) % GzipOffsetTable.entryBytes == 0 else {
            return .damaged("the offset table's length (\(data.count) bytes) does not fit its layout")
        }
        let spanBytes = UInt64(word(data, at: 1))
        guard (1...UInt64(GzipOffsetTable.maximumSpanBytes)).contains(spanBytes) else {
            return .damaged("the offset table's span size (\(spanBytes) bytes) is outside 1 byte to 1 GiB")
        }
        // A span's compressed length lies between deflate's best ratio (1032:1) and stored
        // blocks (5 bytes per 65,535, and a block's end).
        let shortest = spanBytes / 1100
        let longest = spanBytes + spanBytes / 8192 + 1024
        var offsets = [dataStart]
        offsets.reserveCapacity((data.count - GzipOffsetTable.fixedBytes) / GzipOffsetTable.entryBytes + 1)
        // Each span has data, and the last one and the trailer still fit in the file.
        let limit = fileSize >= UInt64(GzipTrailer.size + 1) ? fileSize - UInt64(GzipTrailer.size + 1) : 0
        var position = dataStart
        for entry in stride(from: GzipOffsetTable.fixedBytes, to: data.count, by: GzipOffsetTable.entryBytes) {
            let length = UInt64(word(data, at: entry))
            guard length > 0, length >= shortest, length <= longest else {
                return .damaged("the offset table's entry \(offsets.count) (\(length) bytes) cannot hold \(spanBytes) bytes of deflate data")
            }
            guard length <= limit, position <= limit - length else {
                return .damaged("the offset table points beyond the file (entry \(offsets.count))")
            }
            position += length
            offsets.append(position)
        }
        guard offsets.count > 1 else { return .damaged("the offset table has no restart point") }
        return .found(RestartPoints(offsets: offsets, spanBytes: spanBytes))
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
