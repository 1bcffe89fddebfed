import Glibc

/// The identity and version of a file as `stat` saw it; a change between two stamps means the
/// file was modified, replaced, grew or shrank.
public struct FileStamp: Sendable, Equatable {
    /// Size in bytes.
    public var size: UInt64
    /// Modification time, seconds part.
    public var modifiedSeconds: Int64
    /// Modification time, nanoseconds part.
    public var modifiedNanoseconds: Int64
    /// Device and inode: a replaced file has a new identity.
    public var device: UInt64
    /// Inode number.
    public var inode: UInt64
    /// Permission bits, copied to the output like gzip does.
    public var permissions: UInt32

    /// The stamp of a `stat` result.
    public init(_ info: stat) {
        size = UInt64(max(0, info.st_size))
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        permissions = UInt32(info.st_mode) & 0o7777
    }

    /// Creates a stamp from its parts (tests).
    public init(size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, device: UInt64, inode: UInt64, permissions: UInt32) {
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.device = device
        self.inode = inode
        self.permissions = permissions
    }

    /// Describes how `other` differs from this stamp, or nil when it does not, comparing what
    /// `match` says the two views agree on (`StampMatch`): another host sees the same file
    /// under another device number, and some network file systems under other inode numbers or
    /// with mtimes to the second.
    public func change(to other: FileStamp, matching match: StampMatch = .exact) -> String? {
        if (match.device && device != other.device) || (match.inode && inode != other.inode) { return "file was replaced while it was read" }
        if other.size > size { return "file grew while it was read (\(size) -> \(other.size) bytes)" }
        if other.size < size { return "file shrank while it was read (\(size) -> \(other.size) bytes)" }
        if modifiedSeconds != other.modifiedSeconds || (match.nanoseconds && modifiedNanoseconds != other.modifiedNanoseconds) {
            return "file was modified while it was read (mtime changed)"
        }
        return nil
    }
}
