/// One block of a `RefAssignment`: where to read it, what the file must still look like, and
/// whether to write it as a whole gzip member.
public struct RefBlock: Sendable, Equatable {
    /// The file's index in the job.
    public var file: UInt32
    /// The block's index in its file.
    public var index: UInt32
    /// The source file (absolute path bytes, as the coordinator sees it).
    public var path: [UInt8]
    /// Offset of the first byte to read: the dictionary's start.
    public var offset: UInt64
    /// Leading bytes read that are the dictionary (at most 32 KiB).
    public var dictionaryLength: Int
    /// Bytes of the block itself, after the dictionary.
    public var dataLength: Int
    /// Whether the block ends its file (the stream ends with a final block).
    public var isLast: Bool
    /// The scan's stamp of the file: size, mtime and inode; checked before and after the read.
    public var size: UInt64
    /// Modification time, seconds.
    public var modifiedSeconds: Int64
    /// Modification time, nanoseconds.
    public var modifiedNanoseconds: Int64
    /// Inode number.
    public var inode: UInt64
    /// Permission bits for a whole member.
    public var permissions: UInt32
    /// For a file that is one block: the gzip header to write before the deflate data, then
    /// the trailer after it, so the piece is the finished `.gz` (mode and mtime set). Nil for a
    /// block of a larger file: the piece is raw deflate, stitched by the coordinator.
    public var header: [UInt8]?
    /// For a block of a larger file whose length is known in advance: where to write it in
    /// the file's output instead of a piece. Never together with `header`.
    public var placement: RefPlacement?
    /// For a block of a composite source (a `--tar` job's stream): what its bytes are made of,
    /// dictionary then data. `path` then names the stream's folder, `size` the stream's length
    /// and the stamp fields are 0; nil for a block of one file.
    public var segments: [RefSegment]?

    /// Creates a block reference.
    public init(
        file: UInt32, index: UInt32, path: [UInt8], offset: UInt64, dictionaryLength: Int, dataLength: Int, isLast: Bool,
        size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, inode: UInt64, permissions: UInt32, header: [UInt8]?,
        placement: RefPlacement? = nil
    ) {
        self.file = file
        self.index = index
        self.path = path
        self.offset = offset
        self.dictionaryLength = dictionaryLength
        self.dataLength = dataLength
        self.isLast = isLast
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
        self.permissions = permissions
        self.header = header
        self.placement = placement
    }
}
