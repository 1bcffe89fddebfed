/// Coordinator → shared-storage worker: copy a run of a file's pieces into its `.gz` in the
/// job's workspace, so the coordinator copies no byte of it. A file is stitched in segments
/// sent in order to one worker as its pieces come in: the first carries the gzip header, the
/// last the trailer. The output is named by file and attempt; only the attempt the
/// coordinator is waiting for is ever published.
public struct StitchRequest: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The file's index in the job.
    public var file: UInt32
    /// This stitch's attempt number.
    public var attempt: UInt64
    /// The job's workspace (path bytes).
    public var workspace: [UInt8]
    /// Where the segment's first piece goes in the output (after the header for the first).
    public var offset: UInt64
    /// Whether to fsync the result (the worker is on another kernel than the coordinator).
    public var syncResult: Bool
    /// Permission bits to give the output.
    public var permissions: UInt32
    /// Modification time to give the output, seconds.
    public var modifiedSeconds: Int64
    /// Modification time, nanoseconds.
    public var modifiedNanoseconds: Int64
    /// The gzip header to write first, creating the output: the first segment only, else empty.
    public var header: [UInt8]
    /// The 8-byte trailer to write after the pieces (CRC-32 and ISIZE, from the pieces'
    /// reports): the last segment only, which also sets the mode and mtime; else empty.
    public var trailer: [UInt8]
    /// The pieces, in file order.
    public var pieces: [StitchPiece]
    /// The last segment of a member with an offset table only (sent to a worker that announced
    /// `offsetTable`): the header again, now with the table's lengths, to write at offset 0
    /// over the first segment's (the same length) before the mode and mtime are set; else empty.
    public var finalHeader: [UInt8]

    /// Creates a request.
    public init(
        jobID: UInt64, file: UInt32, attempt: UInt64, workspace: [UInt8], offset: UInt64, syncResult: Bool, permissions: UInt32,
        modifiedSeconds: Int64, modifiedNanoseconds: Int64, header: [UInt8], trailer: [UInt8], pieces: [StitchPiece],
        finalHeader: [UInt8] = []
    ) {
        self.jobID = jobID
        self.file = file
        self.attempt = attempt
        self.workspace = workspace
        self.offset = offset
        self.syncResult = syncResult
        self.permissions = permissions
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.header = header
        self.trailer = trailer
        self.pieces = pieces
        self.finalHeader = finalHeader
    }

    /// Whether this segment starts the output.
    public var isFirst: Bool { !header.isEmpty }
    /// Whether this segment finishes the output.
    public var isLast: Bool { !trailer.isEmpty }
}
