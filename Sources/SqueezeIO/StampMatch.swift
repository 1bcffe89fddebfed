/// What of a file's stamp two views of one file system agree on, and so what a reader compares
/// to prove a file is the one that was scanned. The coordinator's own reads compare it all; a
/// worker on the same kernel or a network file system that keeps inode numbers compares all but
/// the device; one over a file system that makes up its own inode numbers (FUSE: sshfs, object
/// store mounts) or keeps mtimes to the second only compares what is kept. Size and mtime
/// seconds are always compared.
public struct StampMatch: Sendable, Hashable {
    /// The device numbers agree (the same kernel's view).
    public var device: Bool
    /// The inode numbers agree.
    public var inode: Bool
    /// The mtimes agree to the nanosecond.
    public var nanoseconds: Bool

    /// Creates a match.
    public init(device: Bool, inode: Bool, nanoseconds: Bool) {
        self.device = device
        self.inode = inode
        self.nanoseconds = nanoseconds
    }

    /// Everything: the reader's own view of a file it stamped itself.
    public static let exact = StampMatch(device: true, inode: true, nanoseconds: true)
    /// Everything but the device: another host, or a container, on a file system that keeps
    /// inode numbers and nanosecond mtimes.
    public static let sameInodes = StampMatch(device: false, inode: true, nanoseconds: true)
}
