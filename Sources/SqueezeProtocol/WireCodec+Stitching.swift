/// The binary tables of `stitch` and `stitched` (docs/protocol.md, "Shared storage").
extension WireCodec {
    /// Most pieces one stitch may join: a file of 64 GiB in 1 MiB blocks.
    static let maxStitchPieces = 1 << 16

    static func encodeStitch(_ request: StitchRequest) -> [UInt8] {
        var writer = ByteWriter(capacity: 64 + request.workspace.count + request.header.count + request.pieces.count * 28)
        writer.write(request.jobID)
        writer.write(request.file)
        writer.write(request.attempt)
        writer.write(UInt8(request.syncResult ? 1 : 0))
        writer.write(request.permissions)
        writer.write(request.modifiedSeconds)
        writer.write(request.modifiedNanoseconds)
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

    static func stitch(_ parts: [[UInt8]]) throws(ProtocolError) -> StitchRequest {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let file = try reader.read(UInt32.self, "file")
        let attempt = try reader.read(UInt64.self, "attempt")
        let flags = try reader.read(UInt8.self, "flags")
        let permissions = try reader.read(UInt32.self, "permissions")
        let seconds = try reader.read(Int64.self, "mtime seconds")
        let nanoseconds = try reader.read(Int64.self, "mtime nanoseconds")
        let workspace = try path(&reader, "workspace")
        let header = try readBytes(&reader, limit: ProtocolLimits.maxHeaderBytes, "header")
        let trailer = try readBytes(&reader, limit: 8, "trailer")
        let count = Int(try reader.read(UInt32.self, "piece count"))
        guard flags <= 1 else { throw .malformed("flags \(flags)") }
        guard (0...999_999_999).contains(nanoseconds) else { throw .malformed("mtime nanoseconds \(nanoseconds)") }
        guard header.count >= 10, trailer.count == 8 else { throw .malformed("stitch needs a gzip header and an 8-byte trailer") }
        guard count <= maxStitchPieces else { throw .oversized("piece count", size: count, limit: maxStitchPieces) }
        var pieces: [StitchPiece] = []
        pieces.reserveCapacity(min(count, 4096))
        for _ in 0..<count {
            let item = try reader.read(UInt64.self, "item")
            let pieceAttempt = try reader.read(UInt64.self, "piece attempt")
            let position = try reader.read(UInt32.self, "position")
            let length = try reader.read(UInt64.self, "piece length")
            guard position < ProtocolLimits.maxBlocksPerItem else { throw .malformed("position \(position)") }
            guard length <= UInt64(ProtocolLimits.maxBlockSize) * 2 else { throw .malformed("piece of \(length) bytes") }
            pieces.append(StitchPiece(item: item, attempt: pieceAttempt, position: position, length: length))
        }
        try reader.expectEnd("stitch table")
        return StitchRequest(
            jobID: job, file: file, attempt: attempt, workspace: workspace, syncResult: flags == 1, permissions: permissions & 0o7777,
            modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, header: header, trailer: trailer, pieces: pieces)
    }

    static func stitched(_ parts: [[UInt8]]) throws(ProtocolError) -> StitchResult {
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
}
