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

    /// Creates a header for a member compressed at `level`.
    public init(fileName: [UInt8]?, modificationTime: UInt32, level: Int) {
        self.fileName = fileName
        self.modificationTime = modificationTime
        self.level = level
    }

    /// FLG bit announcing a zero-terminated original file name.
    static let fileNameFlag: UInt8 = 0x08
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

    /// The header bytes: ID1 ID2 CM FLG MTIME(LE) XFL OS, then the zero-terminated name if any.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [0x1f, 0x8b, 8, fileName == nil ? 0 : Self.fileNameFlag]
        withUnsafeBytes(of: modificationTime.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(extraFlags)
        bytes.append(Self.unixOS)
        if let fileName {
            bytes.append(contentsOf: fileName.prefix { $0 != 0 })
            bytes.append(0)
        }
        return bytes
    }
}
