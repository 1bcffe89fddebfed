/// What a shared-storage worker's view of a job's files keeps of the coordinator's stamps. On
/// one kernel, or over NFS or CephFS, inode numbers and nanosecond mtimes are the same on every
/// host; FUSE file systems (sshfs, object-store mounts) make up their own inode numbers, and
/// some keep mtimes to the second. Size and mtime seconds always agree, and the storage probe
/// (a token the coordinator planted, read back from a file the worker wrote, and a sample file's
/// first bytes) proves the two see the same files; what does not agree is not compared.
public struct SharedView: Codable, Sendable, Hashable {
    /// The worker sees the coordinator's inode numbers.
    public var inodes: Bool
    /// The worker sees the coordinator's mtimes to the nanosecond.
    public var nanoseconds: Bool

    /// Creates a view.
    public init(inodes: Bool, nanoseconds: Bool) {
        self.inodes = inodes
        self.nanoseconds = nanoseconds
    }

    /// Everything agrees (a worker before views, or a file system that keeps it all).
    public static let same = SharedView(inodes: true, nanoseconds: true)

    /// The view's bits in a `workRef` assignment's flags and a `verify` reference's flag byte:
    /// 2 when inode numbers differ, 4 when mtimes agree to the second only.
    public var flagBits: UInt8 { (inodes ? 0 : 2) | (nanoseconds ? 0 : 4) }

    /// The view those bits describe (other bits ignored).
    public init(flagBits: UInt8) {
        inodes = flagBits & 2 == 0
        nanoseconds = flagBits & 4 == 0
    }
}
