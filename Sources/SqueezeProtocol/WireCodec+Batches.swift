import SqueezeGzip
import SqueezeZMQ

/// The binary tables of `batch` and `verifyBatch` (docs/protocol.md, "Batches").
extension WireCodec {
    static func encodeBatch(_ batch: BatchAssignment) -> [UInt8] {
        var writer = ByteWriter(capacity: 48 + batch.workspace.count + batch.root.count + batch.files.reduce(0) { $0 + 40 + $1.relativePath.count })
        writer.write(batch.jobID)
        writer.write(batch.itemID)
        writer.write(batch.attempt)
        writer.write(batch.setting.engine.wireValue)
        writer.write(UInt8(clamping: batch.setting.level))
        writer.write(UInt8(clamping: batch.headerLevel))
        writer.write(UInt8(batch.syncPieces ? 1 : 0) | batch.view.flagBits)
        writeBytes(batch.workspace, to: &writer)
        writeBytes(batch.root, to: &writer)
        writeFiles(batch.files, to: &writer)
        writeMemberBlocks(batch.memberBlocks, to: &writer)
        return writer.bytes
    }

    static func encodeBatchCheck(_ check: BatchCheck) -> [UInt8] {
        var writer = ByteWriter(capacity: 48 + check.workspace.count + check.root.count + check.files.reduce(0) { $0 + 48 + $1.relativePath.count })
        writer.write(check.checkID)
        writer.write(check.jobID)
        writer.write(check.itemID)
        writer.write(check.attempt)
        writer.write(UInt8(clamping: check.headerLevel))
        writer.write(check.view.flagBits)
        writeBytes(check.workspace, to: &writer)
        writeBytes(check.root, to: &writer)
        writeFiles(check.files, to: &writer)
        for length in check.pieceLengths { writer.write(length) }
        writeMemberBlocks(check.memberBlocks, to: &writer)
        return writer.bytes
    }

    /// A count, then each file's size, mtime, inode, permissions and path (or name).
    static func writeFiles(_ files: [BatchFile], to writer: inout ByteWriter) {
        writer.write(UInt32(files.count))
        for file in files {
            writer.write(file.size)
            writer.write(file.modifiedSeconds)
            writer.write(file.modifiedNanoseconds)
            writer.write(file.inode)
            writer.write(file.permissions)
            writeBytes(file.relativePath, to: &writer)
        }
    }

    static func batch(_ parts: [ZMQFrame]) throws(ProtocolError) -> BatchAssignment {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let setting = try setting(&reader)
        let headerLevel = try headerLevel(&reader)
        let flags = try reader.read(UInt8.self, "flags")
        guard flags <= 7 else { throw .malformed("flags \(flags)") }
        let workspace = try path(&reader, "workspace")
        let root = try path(&reader, "root")
        let files = try readFiles(&reader)
        let blocks = try memberBlocks(&reader, engine: setting.engine)
        try reader.expectEnd("batch table")
        var batch = BatchAssignment(
            jobID: job, itemID: item, attempt: attempt, setting: setting, headerLevel: headerLevel, workspace: workspace, root: root,
            syncPieces: flags & 1 != 0, files: files)
        batch.view = SharedView(flagBits: flags)
        batch.memberBlocks = blocks
        return batch
    }

    /// A `verifyBatch`: its table, and, when it carries its scan's listing check, that check's
    /// two frames as a `checkListing`'s.
    static func batchCheck(_ parts: [ZMQFrame]) throws(ProtocolError) -> BatchCheck {
        guard parts.count == 1 || parts.count == 3 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let check = try reader.read(UInt64.self, "check id")
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let headerLevel = try headerLevel(&reader)
        let flags = try reader.read(UInt8.self, "flags")
        guard flags & ~6 == 0 else { throw .malformed("flags \(flags)") }
        let workspace = try path(&reader, "workspace")
        let root = try path(&reader, "root")
        let files = try readFiles(&reader)
        var lengths: [UInt64] = []
        lengths.reserveCapacity(files.count)
        for file in files {
            let length = try reader.read(UInt64.self, "piece length")
            // A whole member is at least a header and trailer, and at most deflate's worst case
            // (whose slack holds an offset table's header too).
            guard length >= 18, length <= UInt64(ProtocolLimits.maxCompressedBytes(forRaw: Int(file.size))) + UInt64(ProtocolLimits.maxHeaderBytes) + 8 else {
                throw .malformed("piece length \(length) for a file of \(file.size) bytes")
            }
            lengths.append(length)
        }
        let blocks = try memberBlocks(&reader, engine: nil)
        try reader.expectEnd("verifyBatch table")
        var request = BatchCheck(
            checkID: check, jobID: job, itemID: item, attempt: attempt, headerLevel: headerLevel, workspace: workspace, root: root,
            files: files, pieceLengths: lengths)
        request.view = SharedView(flagBits: flags)
        request.memberBlocks = blocks
        if parts.count == 3 { request.listing = try listingCheck(Array(parts[1...])) }
        return request
    }

    /// The optional tail of `scan`, `batch` and `verifyBatch`: the block size and engine
    /// files of several blocks are cut with. Nothing left: nil. `engine`, when given, is the
    /// message's own, which the tail must repeat.
    static func writeMemberBlocks(_ blocks: MemberBlocks?, to writer: inout ByteWriter) {
        guard let blocks else { return }
        writer.write(UInt32(clamping: blocks.blockSize))
        writer.write(blocks.engine.wireValue)
    }

    static func memberBlocks(_ reader: inout ByteReader, engine expected: CompressionEngine?) throws(ProtocolError) -> MemberBlocks? {
        guard reader.remaining > 0 else { return nil }
        let size = Int(try reader.read(UInt32.self, "member block size"))
        guard MemberBlocks.blockSizes.contains(size) else { throw .malformed("member block size \(size)") }
        let value = try reader.read(UInt8.self, "member engine")
        guard let engine = CompressionEngine(wireValue: value), expected == nil || expected == engine else {
            throw .malformed("member engine \(value)")
        }
        return MemberBlocks(blockSize: size, engine: engine)
    }

    private static func headerLevel(_ reader: inout ByteReader) throws(ProtocolError) -> Int {
        let level = Int(try reader.read(UInt8.self, "header level"))
        guard level <= 9 else { throw .malformed("header level \(level)") }
        return level
    }

    /// The files of a batch: at most `maxBlocksPerItem`, each at most `maxBlockSize`, `maxItemBytes` in all,
    /// every path relative and inside the root.
    private static func readFiles(_ reader: inout ByteReader) throws(ProtocolError) -> [BatchFile] {
        let count = Int(try reader.read(UInt32.self, "file count"))
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .tooMany("file count", count: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        var files: [BatchFile] = []
        files.reserveCapacity(min(count, 4096))
        var total: UInt64 = 0
        for _ in 0..<count {
            let size = try reader.read(UInt64.self, "size")
            let seconds = try reader.read(Int64.self, "mtime seconds")
            let nanoseconds = try reader.read(Int64.self, "mtime nanoseconds")
            let inode = try reader.read(UInt64.self, "inode")
            let permissions = try reader.read(UInt32.self, "permissions")
            let relative = try readBytes(&reader, limit: ProtocolLimits.maxPathBytes, "path")
            guard size <= UInt64(ProtocolLimits.maxBlockSize) else { throw .oversized("file", size: Int(clamping: size), limit: ProtocolLimits.maxBlockSize) }
            total += size
            guard total <= UInt64(ProtocolLimits.maxItemBytes) else { throw .oversized("batch", size: Int(clamping: total), limit: ProtocolLimits.maxItemBytes) }
            guard (0...999_999_999).contains(nanoseconds) else { throw .malformed("mtime nanoseconds \(nanoseconds)") }
            guard BatchFile.isRelativePath(relative) else { throw .malformed("batch path is not a relative path inside the root") }
            files.append(BatchFile(
                relativePath: relative, size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, inode: inode,
                permissions: permissions & 0o7777))
        }
        return files
    }
}
