/// The longest table of each kind the decoders accept, worked out field by field from their
/// limits (docs/protocol.md, "Size limits"): what `MessageType.bound` is made of.
extension WireCodec {
    /// A length-prefixed byte string of at most `limit` bytes.
    private static func string(_ limit: Int) -> Int { 4 + limit }

    private static let blocks = ProtocolLimits.maxBlocksPerItem
    private static let path = string(ProtocolLimits.maxPathBytes)
    private static let gzipHeader = string(ProtocolLimits.maxHeaderBytes)
    private static let tableHeader = string(ProtocolLimits.maxTableHeaderBytes)

    /// Job, item, engine, level, count; per block file, index, dictionary and data lengths, last flag.
    static let maxWorkTable = 8 + 8 + 1 + 1 + 4 + blocks * (4 + 4 + 4 + 4 + 1)
    /// Job, item, count; per block CRC, raw and compressed lengths.
    static let maxResultTable = 8 + 8 + 4 + blocks * (4 + 4 + 4)
    /// Job, item, attempt, engine, level, flags, workspace, count; per block file, index, offset,
    /// dictionary and data lengths, flags, size, mtime (2), inode, permissions, path, gzip header,
    /// placement (attempt, offset).
    static let maxWorkRefTable = 8 + 8 + 8 + 1 + 1 + 1 + path + 4
        + blocks * (4 + 4 + 8 + 4 + 4 + 1 + 8 + 8 + 8 + 8 + 4 + path + gzipHeader + 8 + 8)
    /// Job, item, attempt, count; per piece CRC, raw length, piece length, failure.
    static let maxResultRefTable = 8 + 8 + 8 + 4 + blocks * (4 + 4 + 8 + string(maxFailureBytes) + 4)
    /// Job, file, attempt, flags, permissions, mtime (2), offset, workspace, gzip header,
    /// trailer, count; per piece item, attempt, position, length; final header.
    static let maxStitchTable = 8 + 4 + 8 + 1 + 4 + 8 + 8 + 8 + path + tableHeader + string(8) + 4 + maxStitchPieces * (8 + 8 + 4 + 8)
        + tableHeader
    /// Job, file, attempt, length, failure.
    static let maxStitchedTable = 8 + 4 + 8 + 8 + string(maxFailureBytes)
    /// Job, workspace, count; per piece item, attempt, position.
    static let maxDiscardTable = 8 + path + 4 + maxStitchPieces * (8 + 8 + 4)
    /// Job, item, attempt, flags, workspace, count; per member position, replace flag, output path.
    static let maxPublishTable = 8 + 8 + 8 + 1 + path + 4 + blocks * (4 + 1 + path)
    /// Job, item, attempt, count; per failure position and reason.
    static let maxPublishedTable = 8 + 8 + 8 + 4 + blocks * (4 + string(maxFailureBytes))
    /// Job, item, attempt, engine, level, header level, flags, workspace, root, count; per file
    /// size, mtime (2), inode, permissions, path; the member blocks (block size, engine).
    static let maxBatchTable = 8 + 8 + 8 + 1 + 1 + 1 + 1 + path + path + 4 + blocks * (8 + 8 + 8 + 8 + 4 + path) + 4 + 1
    /// Check, job, item, attempt, header level, flags, workspace, root, count; per file size,
    /// mtime (2), inode, permissions, path, piece length; the member blocks (block size, engine).
    static let maxBatchCheckTable = 8 + 8 + 8 + 8 + 1 + 1 + path + path + 4 + blocks * (8 + 8 + 8 + 8 + 4 + path + 8) + 4 + 1
    /// Job, item, attempt, engine, level, header level, flags, small-file bytes, entries, small
    /// bytes, workspace, root, destination, directory, after (a name), exclude (a path), count
    /// and further directories (fewer than `maxScanSections`); the member blocks (block size, engine).
    static let maxScanTable = 8 + 8 + 8 + 1 + 1 + 1 + 1 + 8 + 4 + 8 + path * 5 + string(ProtocolLimits.maxNameBytes)
        + 4 + (ProtocolLimits.maxScanSections - 1) * path + 4 + 1
    /// Job, item, attempt, outcome, reason, section count; per section (at most
    /// `maxScanSections`) directory, resume name and four list counts; and over all sections at
    /// most `maxBlocksPerItem` entries of each list: files (size, mtime (2), inode,
    /// permissions, name) twice, subdirectory names, notes (failed flag, name, reason).
    static let maxScannedTable = 8 + 8 + 8 + 1 + string(maxFailureBytes) + 4
        + ProtocolLimits.maxScanSections * (path + string(ProtocolLimits.maxNameBytes) + 4 * 4)
        + blocks * (2 * (8 + 8 + 8 + 8 + 4 + string(ProtocolLimits.maxNameBytes)) + string(ProtocolLimits.maxNameBytes)
            + 1 + string(ProtocolLimits.maxNameBytes) + string(maxFailureBytes))
    /// Check, job, item, count; per block kind, raw length, last flag, then the longest kind's
    /// fields: a member reference (source path, size, mtime (2), inode, offset, dictionary
    /// length, compressed path, offset and length, gzip header).
    static let maxVerifyTable = 8 + 8 + 8 + 4 + blocks * (1 + 4 + 1 + max(
        4 + 4,  // inline: dictionary and compressed lengths
        path + 8 + 8 + 8 + 8 + 8 + 4 + path + 8 + 8 + gzipHeader,  // reference or member
        path + 8 + 8))  // range: path, offset, length
    /// Check, count; per finding outcome, CRC, source CRC, reason, stored CRC.
    static let maxVerifiedTable = 8 + 4 + blocks * (1 + 4 + 4 + string(maxFailureBytes) + 4)
}
