/// A source file named in a `StorageProbe`, with the scan's view of it.
public struct ProbeSample: Codable, Sendable, Equatable {
    /// Absolute path bytes.
    public var path: [UInt8]
    /// Size in bytes.
    public var size: UInt64
    /// Modification time, seconds.
    public var modifiedSeconds: Int64
    /// Modification time, nanoseconds.
    public var modifiedNanoseconds: Int64
    /// Inode number (the same on every host of a shared file system; device numbers are not).
    public var inode: UInt64

    /// Creates a sample.
    public init(path: [UInt8], size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, inode: UInt64) {
        self.path = path
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
    }
}
