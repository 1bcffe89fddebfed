import SqueezeZMQ

/// The binary tables of `verify` and `verified` (docs/protocol.md, "Verification items").
extension WireCodec {
    /// Block kinds in a `verify` table.
    private static let inlineKind: UInt8 = 0
    private static let referenceKind: UInt8 = 1
    private static let memberKind: UInt8 = 2
    private static let rangeKind: UInt8 = 3

    static func encodeVerify(_ request: VerifyRequest) -> [ZMQFrame] {
        var writer = ByteWriter(capacity: 28 + request.blocks.count * 64)
        writer.write(request.checkID)
        writer.write(request.jobID)
        writer.write(request.itemID)
        writer.write(UInt32(request.blocks.count))
        var payloads: [ZMQFrame] = []
        for block in request.blocks {
            switch block {
            case .inline(let inline):
                writer.write(inlineKind)
                writer.write(UInt32(inline.rawLength))
                writer.write(UInt8(inline.isLast ? 1 : 0))
                writer.write(UInt32(inline.dictionary.count))
                writer.write(UInt32(inline.deflate.count))
                payloads.append(inline.dictionary)
                payloads.append(inline.deflate)
            case .reference(let reference):
                writer.write(reference.header == nil ? referenceKind : memberKind)
                writer.write(UInt32(reference.rawLength))
                writer.write(UInt8(reference.isLast ? 1 : 0) | reference.view.flagBits | (reference.segments != nil ? 8 : 0))
                writeBytes(reference.sourcePath, to: &writer)
                writer.write(reference.size)
                writer.write(reference.modifiedSeconds)
                writer.write(reference.modifiedNanoseconds)
                writer.write(reference.inode)
                writer.write(reference.sourceOffset)
                writer.write(UInt32(reference.dictionaryLength))
                writeBytes(reference.compressedPath, to: &writer)
                writer.write(reference.compressedOffset)
                writer.write(reference.compressedLength)
                if let header = reference.header { writeBytes(header, to: &writer) }
            case .range(let range):
                writer.write(rangeKind)
                writer.write(UInt32(0))
                writer.write(UInt8(0))
                writeBytes(range.path, to: &writer)
                writer.write(range.offset)
                writer.write(range.length)
            }
        }
        // The segments of references to composite sources come last, in one frame.
        let composite = request.blocks.compactMap { block -> [RefSegment]? in
            if case .reference(let reference) = block { return reference.segments }
            return nil
        }
        return [ZMQFrame(writer.bytes)] + payloads + (composite.isEmpty ? [] : [ZMQFrame(encodeSegments(composite))])
    }

    static func verify(_ parts: [ZMQFrame]) throws(ProtocolError) -> VerifyRequest {
        guard let table = parts.first else { throw .truncated("verify table") }
        var reader = ByteReader(table)
        let check = try reader.read(UInt64.self, "check id")
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let count = Int(try reader.read(UInt32.self, "block count"))
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .oversized("block count", size: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        var blocks: [VerifyBlock] = []
        blocks.reserveCapacity(min(count, 1024))
        var composite: [Int] = []
        var nextPayload = 1
        for position in 0..<count {
            let kind = try reader.read(UInt8.self, "block kind")
            let raw = Int(try reader.read(UInt32.self, "raw length"))
            let last = try reader.read(UInt8.self, "last flag")
            guard raw <= ProtocolLimits.maxBlockSize else { throw .oversized("block", size: raw, limit: ProtocolLimits.maxBlockSize) }
            // A reference's flag byte also carries its view (`SharedView.flagBits`).
            guard last <= (kind == referenceKind || kind == memberKind ? 15 : 1) else { throw .malformed("last flag \(last)") }
            switch kind {
            case inlineKind:
                let dictionary = Int(try reader.read(UInt32.self, "dictionary length"))
                let compressed = Int(try reader.read(UInt32.self, "compressed length"))
                guard dictionary <= ProtocolLimits.maxDictionarySize else {
                    throw .oversized("dictionary", size: dictionary, limit: ProtocolLimits.maxDictionarySize)
                }
                guard compressed <= ProtocolLimits.maxCompressedBytes(forRaw: raw) else {
                    throw .malformed("block \(position) of \(compressed) bytes compressed for a \(raw)-byte block")
                }
                guard nextPayload + 1 < parts.count else { throw .truncated("block \(position) payload frames") }
                let dictionaryFrame = parts[nextPayload]
                let deflateFrame = parts[nextPayload + 1]
                nextPayload += 2
                guard dictionaryFrame.count == dictionary, deflateFrame.count == compressed else {
                    throw .malformed("block \(position) payloads are \(dictionaryFrame.count)+\(deflateFrame.count) bytes, table says \(dictionary)+\(compressed)")
                }
                blocks.append(.inline(InlineVerifyBlock(dictionary: dictionaryFrame, deflate: deflateFrame, rawLength: raw, isLast: last == 1)))
            case referenceKind, memberKind:
                let source = try path(&reader, "source path")
                let size = try reader.read(UInt64.self, "size")
                let seconds = try reader.read(Int64.self, "mtime seconds")
                let nanoseconds = try reader.read(Int64.self, "mtime nanoseconds")
                let inode = try reader.read(UInt64.self, "inode")
                let offset = try reader.read(UInt64.self, "source offset")
                let dictionary = Int(try reader.read(UInt32.self, "dictionary length"))
                let compressedPath = try path(&reader, "compressed path")
                let compressedOffset = try reader.read(UInt64.self, "compressed offset")
                let compressedLength = try reader.read(UInt64.self, "compressed length")
                let header = kind == memberKind ? try readBytes(&reader, limit: ProtocolLimits.maxHeaderBytes, "header") : nil
                guard dictionary <= ProtocolLimits.maxDictionarySize else {
                    throw .oversized("dictionary", size: dictionary, limit: ProtocolLimits.maxDictionarySize)
                }
                // Checked here so that no later sum can overflow: both reads lie inside their files' possible range.
                guard offset <= size, UInt64(dictionary + raw) <= size - offset else {
                    throw .malformed("source range \(offset)+\(dictionary + raw) outside a file of \(size) bytes")
                }
                guard compressedLength <= UInt64(ProtocolLimits.maxCompressedBytes(forRaw: raw)),
                      compressedOffset <= ProtocolLimits.maxPlacementOffset else {
                    throw .malformed("compressed range \(compressedOffset)+\(compressedLength) for a \(raw)-byte block")
                }
                guard (0...999_999_999).contains(nanoseconds) else { throw .malformed("mtime nanoseconds \(nanoseconds)") }
                if let header, header.isEmpty { throw .malformed("empty member header") }
                var reference = VerifyReference(
                    sourcePath: source, size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, inode: inode,
                    sourceOffset: offset, dictionaryLength: dictionary, rawLength: raw, isLast: last & 1 != 0,
                    compressedPath: compressedPath, compressedOffset: compressedOffset, compressedLength: compressedLength, header: header)
                reference.view = SharedView(flagBits: last & 7)
                if last & 8 != 0 { composite.append(blocks.count) }
                blocks.append(.reference(reference))
            case rangeKind:
                guard raw == 0, last == 0 else { throw .malformed("range block with raw length \(raw), last flag \(last)") }
                let path = try path(&reader, "range path")
                let offset = try reader.read(UInt64.self, "range offset")
                let length = try reader.read(UInt64.self, "range length")
                // Both bounded, so their sum cannot overflow.
                guard offset <= ProtocolLimits.maxPlacementOffset, length <= ProtocolLimits.maxPlacementOffset else {
                    throw .malformed("range \(offset)+\(length)")
                }
                blocks.append(.range(VerifyRange(path: path, offset: offset, length: length)))
            default:
                throw .malformed("block kind \(kind)")
            }
        }
        try reader.expectEnd("verify table")
        // After the inline payloads, the segments frame, exactly when some reference is composite.
        let frames = nextPayload + (composite.isEmpty ? 0 : 1)
        guard frames == parts.count else { throw .frameCount(expected: frames + 1, actual: parts.count + 1) }
        if !composite.isEmpty {
            let lengths = composite.map { index -> Int in
                if case .reference(let reference) = blocks[index] { return reference.dictionaryLength + reference.rawLength }
                return 0
            }
            let lists = try segments(parts[nextPayload], lengths: lengths)
            for (index, list) in zip(composite, lists) {
                if case .reference(var reference) = blocks[index] {
                    reference.segments = list
                    blocks[index] = .reference(reference)
                }
            }
        }
        return VerifyRequest(checkID: check, jobID: job, itemID: item, blocks: blocks)
    }

    static func encodeVerified(_ report: VerifyReport) -> [UInt8] {
        var writer = ByteWriter(capacity: 12 + report.findings.count * 16)
        writer.write(report.checkID)
        writer.write(UInt32(report.findings.count))
        for finding in report.findings {
            writer.write(finding.outcome.rawValue)
            writer.write(finding.crc)
            writer.write(finding.sourceCRC)
            writeBytes(Array(finding.reason.utf8.prefix(maxFailureBytes)), to: &writer)
        }
        // The stored CRCs follow the findings, all or none: a verifier without them ends here.
        if report.findings.contains(where: { $0.storedCRC != nil }) {
            for finding in report.findings { writer.write(finding.storedCRC ?? 0) }
        }
        return writer.bytes
    }

    /// A `verified`: its table, and, answering a `verifyBatch` that carried a listing check, a
    /// `listingChecked`'s table.
    static func verified(_ parts: [ZMQFrame]) throws(ProtocolError) -> VerifyReport {
        guard parts.count == 1 || parts.count == 2 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let check = try reader.read(UInt64.self, "check id")
        let count = Int(try reader.read(UInt32.self, "finding count"))
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .oversized("finding count", size: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        var findings: [VerifyFinding] = []
        findings.reserveCapacity(min(count, 1024))
        for _ in 0..<count {
            let value = try reader.read(UInt8.self, "outcome")
            guard let outcome = VerifyOutcome(rawValue: value) else { throw .malformed("outcome \(value)") }
            let crc = try reader.read(UInt32.self, "crc")
            let sourceCRC = try reader.read(UInt32.self, "source crc")
            let reason = try readBytes(&reader, limit: maxFailureBytes, "reason")
            findings.append(VerifyFinding(outcome: outcome, crc: crc, sourceCRC: sourceCRC, reason: String(decoding: reason, as: UTF8.self)))
        }
        if reader.remaining > 0 {
            for position in findings.indices { findings[position].storedCRC = try reader.read(UInt32.self, "stored crc") }
        }
        try reader.expectEnd("verified table")
        var report = VerifyReport(checkID: check, findings: findings)
        if parts.count == 2 { report.listing = try listingChecked([parts[1]]) }
        return report
    }
}
