import Glibc

/// Any entry a walk found, as an archive stores it: its type, owner, mode, times and, for a
/// symbolic link, its target. What `DirectoryWalker(everyEntry: true)` reports, in walk order.
public struct ScannedEntry: Sendable, Equatable {
    /// The path relative to the walk's root; empty for the root itself.
    public var relativePath: BytePath
    /// `st_mode`: the type bits and the permission bits.
    public var mode: UInt32
    /// Size, mtime, identity and permissions as `lstat` saw them.
    public var stamp: FileStamp
    /// Owner's user id.
    public var owner: UInt32
    /// Owner's group id.
    public var group: UInt32
    /// Hard links to the inode.
    public var linkCount: UInt64
    /// For a device, which one (`st_rdev`); else 0.
    public var deviceNumber: UInt64
    /// For a symbolic link, its target bytes, as `readlink` gives them; else nil.
    public var linkTarget: [UInt8]?

    /// The entry for `info`, an `lstat` of `relativePath`.
    public init(relativePath: BytePath, info: stat, linkTarget: [UInt8]? = nil) {
        self.relativePath = relativePath
        mode = UInt32(info.st_mode)
        stamp = FileStamp(info)
        owner = UInt32(info.st_uid)
        group = UInt32(info.st_gid)
        linkCount = UInt64(info.st_nlink)
        deviceNumber = UInt64(info.st_rdev)
        self.linkTarget = linkTarget
    }

    /// The type bits of `mode` (`S_IFREG`, `S_IFDIR`…).
    public var type: UInt32 { mode & UInt32(S_IFMT) }
}
