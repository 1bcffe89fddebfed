import Glibc

/// What a published `.gz` at a path is, read from the file itself: its stat and its gzip
/// trailer. Enough to tell that an output holds a given member, by its size and the trailer's
/// CRC-32 and length: a writer taking over a worker's grant, or a resumed job looking for the
/// outputs a worker published (whose inode the coordinator never saw).
public struct OutputFacts: Sendable, Equatable {
    /// Bytes in the file.
    public var size: UInt64
    /// Its device and inode.
    public var device: UInt64
    public var inode: UInt64
    /// Its modification time.
    public var modifiedSeconds: Int64
    public var modifiedNanoseconds: Int64
    /// Whether it starts with the gzip magic bytes.
    public var startsAsGzip: Bool
    /// The trailer: CRC-32 and size modulo 2^32 of the uncompressed data.
    public var crc: UInt32
    public var isize: UInt32

    /// Creates facts from their parts.
    public init(size: UInt64, device: UInt64, inode: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, startsAsGzip: Bool, crc: UInt32, isize: UInt32) {
        self.size = size
        self.device = device
        self.inode = inode
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.startsAsGzip = startsAsGzip
        self.crc = crc
        self.isize = isize
    }

    /// Blocking: the facts of the regular file at `path` (not followed if a symlink), or nil
    /// when there is none, or it is too short to be a gzip member, or cannot be read.
    public static func read(_ path: BytePath) -> OutputFacts? {
        let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size >= 18 else { return nil }
        let size = UInt64(info.st_size)
        var head: [UInt8] = [0, 0]
        var tail = [UInt8](repeating: 0, count: 8)
        guard readFully(fd, into: &head, at: 0), readFully(fd, into: &tail, at: off_t(size - 8)) else { return nil }
        func word(_ at: Int) -> UInt32 {
            UInt32(tail[at]) | UInt32(tail[at + 1]) << 8 | UInt32(tail[at + 2]) << 16 | UInt32(tail[at + 3]) << 24
        }
        return OutputFacts(
            size: size, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec),
            startsAsGzip: head == [0x1f, 0x8b], crc: word(0), isize: word(4))
    }

    /// Whether it is the member of `length` bytes whose data has `crc` and `rawLength` bytes.
    public func holds(length: UInt64, crc: UInt32, rawLength: UInt64) -> Bool {
        startsAsGzip && size == length && self.crc == crc && isize == UInt32(truncatingIfNeeded: rawLength)
    }

    private static func readFully(_ fd: Int32, into buffer: inout [UInt8], at offset: off_t) -> Bool {
        let wanted = buffer.count
        let got = buffer.withUnsafeMutableBytes { bytes in
            FileDescriptorIO.retryingEINTR { pread(fd, bytes.baseAddress, wanted, offset) }
        }
        return got == wanted
    }
}
