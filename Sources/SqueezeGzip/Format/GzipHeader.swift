/// The gzip member header (RFC 1952), written the way gzip does.
public struct GzipHeader: Sendable, Equatable {
    /// Original file name as raw bytes (not necessarily UTF-8), without a terminator;
    /// `nil` omits the FNAME field. Bytes from the first NUL on are dropped when encoding,
    /// since a NUL would end the field early.
    public var fileName: [UInt8]?
    /// MTIME: modification time in seconds since the Unix epoch (0 = unknown).
    public var modificationTime: UInt32
    /// The compression level used; only selects XFL (2 for 9, 4 for 1, otherwise 0).
    public var level: Int
    /// Squeeze's table of restart points, as an extra subfield (FEXTRA); nil leaves it out.
    public var offsetTable: GzipOffsetTable?

    /// Creates a header for a member compressed at `level`.
    public init(fileName: [UInt8]?, modificationTime: UInt32, level: Int, offsetTable: GzipOffsetTable? = nil) {
        self.fileName = fileName
        self.modificationTime = modificationTime
        self.level = level
        self.offsetTable = offsetTable
    }

    /// FLG bit announcing a zero-terminated original file name.
    static let fileNameFlag: UInt8 = 0x08
    /// FLG bit announcing an extra field.
    static let extraFlag: UInt8 = 0x04
    /// OS byte gzip writes on Unix.
    static let unixOS: UInt8 = 3

    /// XFL as gzip sets it: 2 = maximum compression, 4 = fastest.
    var extraFlags: UInt8 {
        switch level {
        case 9: 2
        case 1: 4
        default: 0
        }
    }

    /// The header bytes: ID1 ID2 CM FLG MTIME(LE) XFL OS, then the extra field (XLEN and the
    /// offset table's subfield) if any, then the zero-terminated name if any.
    public func encoded() -> [UInt8] {
        let flags = (fileName == nil ? 0 : Self.fileNameFlag) | (offsetTable == nil ? 0 : Self.extraFlag)
        var bytes: [UInt8] = [0x1f, 0x8b, 8, flags]
        withUnsafeBytes(of: modificationTime.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(extraFlags)
        bytes.append(Self.unixOS)
        if let subfield = offsetTable?.subfield() {
            // The table keeps to `maximumEntries`, so XLEN fits in 16 bits.
            bytes += [UInt8(truncatingIfNeeded: subfield.count), UInt8(truncatingIfNeeded: subfield.count >> 8)]
            bytes += subfield
        }
        if let fileName {
            bytes.append(contentsOf: fileName.prefix { $0 != 0 })
            bytes.append(0)
        }
        return bytes
    }
}
