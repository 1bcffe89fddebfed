import SqueezeZMQ

/// The binary tables of `stitch`, `stitched` and `discard` (docs/protocol.md, "Shared storage").
extension WireCodec {
    /// Most pieces one stitch may join: a file of 64 GiB in 1 MiB blocks.
    static let maxStitchPieces = 1 << 16
    /// The furthest a segment may start: every piece of a file of the most pieces, at most
    /// twice the largest block each (so sums of offsets and lengths cannot overflow).
    static let maxStitchOffset = UInt64(maxStitchPieces) * UInt64(ProtocolLimits.maxBlockSize) * 2

    static func encodeStitch(_ request: StitchRequest) -> [UInt8] {
        var writer = ByteWriter(capacity: 68 + request.workspace.count + request.header.count + request.finalHeader.count + request.pieces.count * 28)
        writer.write(request.jobID)
        writer.write(request.file)
        writer.write(request.attempt)
        writer.write(UInt8(request.syncResult ? 1 : 0))
        writer.write(request.permissions)
        writer.write(request.modifiedSeconds)
        writer.write(request.modifiedNanoseconds)
        writer.write(request.offset)
        writeBytes(request.workspace, to: &writer)
        writeBytes(request.header, to: &writer)
        writeBytes(request.trailer, to: &writer)
        writer.write(UInt32(request.pieces.count))
        for piece in request.pieces {
            writer.write(piece.item)
            writer.write(piece.attempt)
            writer.write(piece.position)
            writer.write(piece.length)
        }
        // Only when present, so a worker that does not know it is sent the table it knows.
        if !request.finalHeader.isEmpty { writeBytes(request.finalHeader, to: &writer) }
        return writer.bytes
    }

    static func encodeStitch(_ result: StitchResult) -> [UInt8] {
        var writer = ByteWriter(capacity: 32)
        writer.write(result.jobID)
        writer.write(result.file)
        writer.write(result.attempt)
        writer.write(result.length)
        writeBytes(Array((result.failure ?? "").utf8.prefix(maxFailureBytes)), to: &writer)
        return writer.bytes
    }

    static func stitch(_ parts: [ZMQFrame]) throws(ProtocolError) -> StitchRequest {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let file = try reader.read(UInt32.self, "file")
        let attempt = try reader.read(UInt64.self, "attempt")
        let flags = try reader.read(UInt8.self, "flags")
        let permissions = try reader.read(UInt32.self, "permissions")
        let seconds = try reader.read(Int64.self, "mtime seconds")
        let nanoseconds = try reader.read(Int64.self, "mtime nanoseconds")
        let offset = try reader.read(UInt64.self, "offset")
        let workspace = try path(&reader, "workspace")
        let header = try readBytes(&reader, limit: ProtocolLimits.maxTableHeaderBytes, "header")
        let trailer = try readBytes(&reader, limit: 8, "trailer")
        let count = Int(try reader.read(UInt32.self, "piece count"))
        guard flags <= 1 else { throw .malformed("flags \(flags)") }
        guard (0...999_999_999).contains(nanoseconds) else { throw .malformed("mtime nanoseconds \(nanoseconds)") }
        guard header.isEmpty || header.count >= 10 else { throw .malformed("a gzip header of \(header.count) bytes") }
        guard trailer.isEmpty || trailer.count == 8 else { throw .malformed("a trailer of \(trailer.count) bytes") }
        guard header.isEmpty ? offset > 0 : offset == UInt64(header.count) else {
            throw .malformed("segment at \(offset) with a header of \(header.count) bytes")
        }
        guard offset <= maxStitchOffset else { throw .malformed("segment at \(offset)") }
        guard count <= maxStitchPieces else { throw .tooMany("piece count", count: count, limit: maxStitchPieces) }
        var pieces: [StitchPiece] = []
        pieces.reserveCapacity(min(count, 4096))
        for _ in 0..<count {
            var piece = try pieceName(&reader)
            piece.length = try reader.read(UInt64.self, "piece length")
            guard piece.length <= UInt64(ProtocolLimits.maxBlockSize) * 2 else { throw .malformed("piece of \(piece.length) bytes") }
            pieces.append(piece)
        }
        let finalHeader = reader.remaining > 0 ? try readBytes(&reader, limit: ProtocolLimits.maxTableHeaderBytes, "final header") : []
        guard finalHeader.isEmpty || (finalHeader.count >= 10 && !trailer.isEmpty) else {
            throw .malformed("a final header of \(finalHeader.count) bytes\(trailer.isEmpty ? " before the last segment" : "")")
        }
        try reader.expectEnd("stitch table")
        return StitchRequest(
            jobID: job, file: file, attempt: attempt, workspace: workspace, offset: offset, syncResult: flags == 1, permissions: permissions & 0o7777,
            modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, header: header, trailer: trailer, pieces: pieces, finalHeader: finalHeader)
    }

    static func stitched(_ parts: [ZMQFrame]) throws(ProtocolError) -> StitchResult {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let file = try reader.read(UInt32.self, "file")
        let attempt = try reader.read(UInt64.self, "attempt")
        let length = try reader.read(UInt64.self, "length")
        let failure = try readBytes(&reader, limit: maxFailureBytes, "failure")
        try reader.expectEnd("stitched table")
        return StitchResult(jobID: job, file: file, attempt: attempt, length: length,
                            failure: failure.isEmpty ? nil : String(decoding: failure, as: UTF8.self))
    }

    static func encodeDiscard(_ request: PieceDiscard) -> [UInt8] {
        var writer = ByteWriter(capacity: 16 + request.workspace.count + request.pieces.count * 20)
        writer.write(request.jobID)
        writeBytes(request.workspace, to: &writer)
        writer.write(UInt32(request.pieces.count))
        for piece in request.pieces {
            writer.write(piece.item)
            writer.write(piece.attempt)
            writer.write(piece.position)
        }
        return writer.bytes
    }

    static func discard(_ parts: [ZMQFrame]) throws(ProtocolError) -> PieceDiscard {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let workspace = try path(&reader, "workspace")
        let count = Int(try reader.read(UInt32.self, "piece count"))
        guard count <= maxStitchPieces else { throw .tooMany("piece count", count: count, limit: maxStitchPieces) }
        var pieces: [StitchPiece] = []
        pieces.reserveCapacity(min(count, 4096))
        for _ in 0..<count {
            pieces.append(try pieceName(&reader))
        }
        try reader.expectEnd("discard table")
        return PieceDiscard(jobID: job, workspace: workspace, pieces: pieces)
    }

    /// A piece's name in a stitch or discard table: item, attempt and a position in range
    /// (length 0; a stitch table reads it after).
    private static func pieceName(_ reader: inout ByteReader) throws(ProtocolError) -> StitchPiece {
        let item = try reader.read(UInt64.self, "item")
        let attempt = try reader.read(UInt64.self, "piece attempt")
        let position = try reader.read(UInt32.self, "position")
        guard position < ProtocolLimits.maxBlocksPerItem else { throw .malformed("position \(position)") }
        return StitchPiece(item: item, attempt: attempt, position: position, length: 0)
    }
}
