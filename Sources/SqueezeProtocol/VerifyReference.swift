/// A block of a `verify` item on shared storage: where its source and its compressed bytes
/// are. The verifier reads the source range (dictionary then data) checking the scan's stamp,
/// and `compressedLength` bytes at `compressedOffset` of `compressedPath`.
public struct VerifyReference: Sendable, Equatable {
    /// The source file (absolute) and its stamp as scanned.
    public var sourcePath: [UInt8]
    public var size: UInt64
    public var modifiedSeconds: Int64
    public var modifiedNanoseconds: Int64
    public var inode: UInt64
    /// Where the dictionary starts; the data follows it.
    public var sourceOffset: UInt64
    public var dictionaryLength: Int
    /// The planned uncompressed length.
    public var rawLength: Int
    /// Whether it is its file's last block.
    public var isLast: Bool
    /// The file holding the compressed bytes (a piece, or a placed output), absolute.
    public var compressedPath: [UInt8]
    public var compressedOffset: UInt64
    public var compressedLength: UInt64
    /// For a one-block file written as a whole member: the gzip header it must start with
    /// (the member ends with a trailer that must match what it decodes to). Nil for raw deflate.
    public var header: [UInt8]?
    /// What the verifier's view keeps of the source's stamp: what it must compare.
    public var view: SharedView = .same
    /// For a block of a composite source (a `--tar` job's stream): its dictionary and data as
    /// segments, as in `RefBlock.segments`; nil for a block of one file.
    public var segments: [RefSegment]?

    /// Creates a reference.
    public init(
        sourcePath: [UInt8], size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, inode: UInt64,
        sourceOffset: UInt64, dictionaryLength: Int, rawLength: Int, isLast: Bool,
        compressedPath: [UInt8], compressedOffset: UInt64, compressedLength: UInt64, header: [UInt8]?
    ) {
        self.sourcePath = sourcePath
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
        self.sourceOffset = sourceOffset
        self.dictionaryLength = dictionaryLength
        self.rawLength = rawLength
        self.isLast = isLast
        self.compressedPath = compressedPath
        self.compressedOffset = compressedOffset
        self.compressedLength = compressedLength
        self.header = header
    }
}
