/// One output a job published, with what identified its source when it was compressed: on a resume, an
/// output whose source still has the same size, modification time, device and inode is kept.
public struct PublishedFile {
    /// The job that published it.
    public var job: UInt64
    /// The source's path relative to the job's source root, as bytes (it need not be UTF-8).
    public var path: [UInt8]
    /// The source's size in bytes.
    public var sourceSize: UInt64
    /// The source's modification time: seconds since 1970.
    public var sourceModifiedSeconds: Int64
    /// The source's modification time: nanoseconds within the second.
    public var sourceModifiedNanoseconds: Int64
    /// The source's device (st_dev).
    public var sourceDevice: UInt64
    /// The source's inode (st_ino).
    public var sourceInode: UInt64
    /// The published output's size in bytes.
    public var outputSize: UInt64
    /// The published output's inode, to tell it from a file put in its place since.
    public var outputInode: UInt64
    /// The CRC-32 of the source's bytes (the gzip trailer's).
    public var crc: UInt32

    /// A published-file record, with every field given.
    public init(
        job: UInt64,
        path: [UInt8],
        sourceSize: UInt64,
        sourceModifiedSeconds: Int64,
        sourceModifiedNanoseconds: Int64,
        sourceDevice: UInt64,
        sourceInode: UInt64,
        outputSize: UInt64,
        outputInode: UInt64,
        crc: UInt32
    ) {
        self.job = job
        self.path = path
        self.sourceSize = sourceSize
        self.sourceModifiedSeconds = sourceModifiedSeconds
        self.sourceModifiedNanoseconds = sourceModifiedNanoseconds
        self.sourceDevice = sourceDevice
        self.sourceInode = sourceInode
        self.outputSize = outputSize
        self.outputInode = outputInode
        self.crc = crc
    }
}

extension PublishedFile: Sendable {}

extension PublishedFile: Equatable {}
