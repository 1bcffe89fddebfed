/// One entry of a tar archive: what its header says. Names and link targets are bytes, as
/// the file system gives them: any byte but NUL, UTF-8 or not.
public struct TarEntry: Sendable, Equatable {
    /// The name in the archive (a directory's ends with `/`).
    public var name: [UInt8]
    /// What the entry is.
    public var kind: TarEntryKind
    /// Permission bits, with set-user-id, set-group-id and sticky.
    public var permissions: UInt32
    /// Owner's user id.
    public var owner: UInt32
    /// Owner's group id.
    public var group: UInt32
    /// The owner's user name; empty when the id has none.
    public var userName: [UInt8]
    /// The group's name; empty when the id has none.
    public var groupName: [UInt8]
    /// Bytes of data after the header: the file's size for a regular file, else 0.
    public var size: UInt64
    /// Modification time, seconds since the epoch (negative before 1970).
    public var modifiedSeconds: Int64
    /// Modification time, nanoseconds (0..<1_000_000_000).
    public var modifiedNanoseconds: Int64
    /// A symbolic link's target, or the name a hard link repeats; else empty.
    public var linkTarget: [UInt8]
    /// A device's major number; else 0.
    public var deviceMajor: UInt32
    /// A device's minor number; else 0.
    public var deviceMinor: UInt32

    /// Creates an entry.
    public init(
        name: [UInt8], kind: TarEntryKind, permissions: UInt32, owner: UInt32 = 0, group: UInt32 = 0, userName: [UInt8] = [],
        groupName: [UInt8] = [], size: UInt64 = 0, modifiedSeconds: Int64 = 0, modifiedNanoseconds: Int64 = 0,
        linkTarget: [UInt8] = [], deviceMajor: UInt32 = 0, deviceMinor: UInt32 = 0
    ) {
        self.name = name
        self.kind = kind
        self.permissions = permissions
        self.owner = owner
        self.group = group
        self.userName = userName
        self.groupName = groupName
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.linkTarget = linkTarget
        self.deviceMajor = deviceMajor
        self.deviceMinor = deviceMinor
    }
}
