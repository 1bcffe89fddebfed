import SqueezeGzip
import SqueezeZMQ

/// The binary tables of `workRef` and `resultRef` (docs/protocol.md, "Shared storage").
extension WireCodec {
    static func encodeRef(_ work: RefAssignment) -> [UInt8] {
        var writer = ByteWriter(capacity: 40 + work.workspace.count + work.blocks.count * 128)
        writer.write(work.jobID)
        writer.write(work.itemID)
        writer.write(work.attempt)
        writer.write(work.setting.engine.wireValue)
        writer.write(UInt8(clamping: work.setting.level))
        writer.write(UInt8(work.syncPieces ? 1 : 0) | work.view.flagBits)
        writeBytes(work.workspace, to: &writer)
        writer.write(UInt32(work.blocks.count))
        for block in work.blocks {
            writer.write(block.file)
            writer.write(block.index)
            writer.write(block.offset)
            writer.write(UInt32(block.dictionaryLength))
            writer.write(UInt32(block.dataLength))
            writer.write(UInt8((block.isLast ? 1 : 0) | (block.header != nil ? 2 : 0) | (block.placement != nil ? 4 : 0) | (block.segments != nil ? 8 : 0)))
            writer.write(block.size)
            writer.write(block.modifiedSeconds)
            writer.write(block.modifiedNanoseconds)
            writer.write(block.inode)
            writer.write(block.permissions)
            writeBytes(block.path, to: &writer)
            writeBytes(block.header ?? [], to: &writer)
            if let placement = block.placement {
                writer.write(placement.attempt)
                writer.write(placement.offset)
            }
        }
        return writer.bytes
    }

    static func encodeRef(_ result: RefResult) -> [UInt8] {
        var writer = ByteWriter(capacity: 28 + result.pieces.count * 16)
        writer.write(result.jobID)
        writer.write(result.itemID)
        writer.write(result.attempt)
        writer.write(UInt32(result.pieces.count))
        for piece in result.pieces {
            writer.write(piece.crc)
            writer.write(UInt32(piece.rawLength))
            writer.write(piece.pieceLength)
            writeBytes(Array((piece.failure ?? "").utf8.prefix(maxFailureBytes)), to: &writer)
        }
        // Stored CRCs follow the table only when some piece has one (blocks of a file that
        // is stitched): 4 bytes a piece is not spent on batches of whole members.
        if result.pieces.contains(where: { $0.storedCRC != nil }) {
            for piece in result.pieces { writer.write(piece.storedCRC ?? 0) }
        }
        return writer.bytes
    }

    /// Longest failure reason in a `resultRef`.
    static let maxFailureBytes = 1024

    static func writeBytes(_ bytes: [UInt8], to writer: inout ByteWriter) {
        writer.write(UInt32(bytes.count))
        writer.write(bytes)
    }

    static func readBytes(_ reader: inout ByteReader, limit: Int, _ what: String) throws(ProtocolError) -> [UInt8] {
        let count = Int(try reader.read(UInt32.self, "\(what) length"))
        guard count <= limit else { throw .oversized(what, size: count, limit: limit) }
        return try reader.readBytes(count, what)
    }

    static func path(_ reader: inout ByteReader, _ what: String) throws(ProtocolError) -> [UInt8] {
        let bytes = try readBytes(&reader, limit: ProtocolLimits.maxPathBytes, what)
        guard bytes.first == UInt8(ascii: "/"), !bytes.contains(0) else { throw .malformed("\(what) is not an absolute path") }
        return bytes
    }

    static func workRef(_ parts: [ZMQFrame]) throws(ProtocolError) -> RefAssignment {
        guard parts.count == 1 || parts.count == 2 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let setting = try setting(&reader)
        let flags = try reader.read(UInt8.self, "flags")
        guard flags <= 7 else { throw .malformed("flags \(flags)") }
        let workspace = try path(&reader, "workspace")
        let count = Int(try reader.read(UInt32.self, "block count"))
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .tooMany("block count", count: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        var blocks: [RefBlock] = []
        blocks.reserveCapacity(min(count, 1024))
        var composite: [Int] = []
        for _ in 0..<count {
            let file = try reader.read(UInt32.self, "block file")
            let index = try reader.read(UInt32.self, "block index")
            let offset = try reader.read(UInt64.self, "offset")
            let dictionary = Int(try reader.read(UInt32.self, "dictionary length"))
            let data = Int(try reader.read(UInt32.self, "data length"))
            let blockFlags = try reader.read(UInt8.self, "block flags")
            let size = try reader.read(UInt64.self, "size")
            let seconds = try reader.read(Int64.self, "mtime seconds")
            let nanoseconds = try reader.read(Int64.self, "mtime nanoseconds")
            let inode = try reader.read(UInt64.self, "inode")
            let permissions = try reader.read(UInt32.self, "permissions")
            let source = try path(&reader, "source path")
            let header = try readBytes(&reader, limit: ProtocolLimits.maxHeaderBytes, "header")
            var placement: RefPlacement?
            if blockFlags & 4 != 0 {
                let output = try reader.read(UInt64.self, "placement attempt")
                let at = try reader.read(UInt64.self, "placement offset")
                // Past every header, and far from where a sum with a block's length could overflow.
                guard (1...ProtocolLimits.maxPlacementOffset).contains(at) else { throw .malformed("placement offset \(at)") }
                placement = RefPlacement(attempt: output, offset: at)
            }
            guard dictionary <= ProtocolLimits.maxDictionarySize else {
                throw .oversized("dictionary", size: dictionary, limit: ProtocolLimits.maxDictionarySize)
            }
            guard data <= ProtocolLimits.maxBlockSize else { throw .oversized("block", size: data, limit: ProtocolLimits.maxBlockSize) }
            guard blockFlags <= 15 else { throw .malformed("block flags \(blockFlags)") }
            guard blockFlags & 8 == 0 || placement == nil else { throw .malformed("a composite block is not placed") }
            // Checked here so that no later sum can overflow: the read must lie inside the file.
            guard offset <= size, UInt64(dictionary + data) <= size - offset else {
                throw .malformed("block range \(offset)+\(dictionary + data) outside a file of \(size) bytes")
            }
            let member = blockFlags & 2 != 0
            guard member == !header.isEmpty else { throw .malformed("member flag and header disagree") }
            guard !(member && placement != nil) else { throw .malformed("a whole member is not placed") }
            guard (0...999_999_999).contains(nanoseconds) else { throw .malformed("mtime nanoseconds \(nanoseconds)") }
            blocks.append(RefBlock(
                file: file, index: index, path: source, offset: offset, dictionaryLength: dictionary, dataLength: data,
                isLast: blockFlags & 1 != 0, size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds,
                inode: inode, permissions: permissions & 0o7777, header: member ? header : nil, placement: placement))
            if blockFlags & 8 != 0 { composite.append(blocks.count - 1) }
        }
        try reader.expectEnd("workRef table")
        // Blocks of a composite source take their segments from the second frame, which comes
        // exactly when there is one.
        guard composite.isEmpty == (parts.count == 1) else { throw .frameCount(expected: composite.isEmpty ? 2 : 3, actual: parts.count + 1) }
        if !composite.isEmpty {
            let lists = try segments(parts[1], lengths: composite.map { blocks[$0].dictionaryLength + blocks[$0].dataLength })
            for (index, list) in zip(composite, lists) { blocks[index].segments = list }
        }
        var assignment = RefAssignment(
            jobID: job, itemID: item, attempt: attempt, setting: setting, workspace: workspace, syncPieces: flags & 1 != 0, blocks: blocks)
        assignment.view = SharedView(flagBits: flags)
        return assignment
    }

    static func resultRef(_ parts: [ZMQFrame]) throws(ProtocolError) -> RefResult {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let count = Int(try reader.read(UInt32.self, "piece count"))
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .tooMany("piece count", count: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        var pieces: [PieceReport] = []
        pieces.reserveCapacity(min(count, 1024))
        for _ in 0..<count {
            let crc = try reader.read(UInt32.self, "piece crc")
            let raw = Int(try reader.read(UInt32.self, "raw length"))
            let length = try reader.read(UInt64.self, "piece length")
            let failure = try readBytes(&reader, limit: maxFailureBytes, "failure")
            if !failure.isEmpty {
                pieces.append(PieceReport(failure: String(decoding: failure, as: UTF8.self)))
                continue
            }
            guard raw <= ProtocolLimits.maxBlockSize else { throw .oversized("block", size: raw, limit: ProtocolLimits.maxBlockSize) }
            // Deflate's worst case plus a header and trailer; anything longer is not a piece of this block.
            guard length <= UInt64(ProtocolLimits.maxCompressedBytes(forRaw: raw)) else { throw .malformed("piece of \(length) bytes for a \(raw)-byte block") }
            pieces.append(PieceReport(crc: crc, rawLength: raw, pieceLength: length))
        }
        // The stored CRCs that may follow: all or none (0 where the worker reported none).
        if reader.remaining == 4 * count {
            for position in pieces.indices { pieces[position].storedCRC = try reader.read(UInt32.self, "stored crc") }
        }
        try reader.expectEnd("resultRef table")
        return RefResult(jobID: job, itemID: item, attempt: attempt, pieces: pieces)
    }
}
