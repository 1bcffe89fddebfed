import Foundation
import SqueezeGzip
import SqueezeZMQ

/// Encodes and decodes protocol v2 messages (docs/protocol.md).
///
/// Frames: a 16-byte header, then for bodied types one body frame, then for `work` and `result`
/// one raw payload frame per block. Control bodies are JSON; the hot `work`/`result` tables are
/// little-endian binary so bulk bytes are never wrapped or re-encoded. Payload frames are the
/// blocks' own `ZMQFrame`s: encoding and decoding never copy them.
public enum WireCodec {
    /// Frames for `message`, without any routing id.
    public static func encode(_ message: WireMessage, correlation: UInt64 = 0) -> [ZMQFrame] {
        let header = ZMQFrame(MessageHeader(type: message.type, correlation: correlation).encoded())
        switch message {
        case .heartbeat, .goodbye, .unknownPeer, .statusRequest:
            return [header]
        case .cancelJob(let job), .cancel(let job), .discarded(let job):
            var writer = ByteWriter(capacity: 8)
            writer.write(job)
            return [header, ZMQFrame(writer.bytes)]
        case .workerReady(let body): return [header, ZMQFrame(json(body))]
        case .welcome(let body): return [header, ZMQFrame(json(body))]
        case .itemFailed(let body): return [header, ZMQFrame(json(body))]
        case .timing(let body): return [header, ZMQFrame(json(body))]
        case .clock(let micros):
            var writer = ByteWriter(capacity: 8)
            writer.write(UInt64(bitPattern: micros))
            return [header, ZMQFrame(writer.bytes)]
        case .timings(let on): return [header, ZMQFrame([on ? 1 : 0])]
        case .submit(let body): return [header, ZMQFrame(json(body))]
        case .attach(let body): return [header, ZMQFrame(json(body))]
        case .submitted(let body): return [header, ZMQFrame(json(body))]
        case .jobEvent(let body): return [header, ZMQFrame(json(body))]
        case .statusReply(let body): return [header, ZMQFrame(json(body))]
        case .error(let body): return [header, ZMQFrame(json(body))]
        case .probe(let body): return [header, ZMQFrame(json(body))]
        case .probeReply(let body): return [header, ZMQFrame(json(body))]
        case .workRef(let work):
            let composite = work.blocks.compactMap(\.segments)
            return [header, ZMQFrame(encodeRef(work))] + (composite.isEmpty ? [] : [ZMQFrame(encodeSegments(composite))])
        case .resultRef(let result): return [header, ZMQFrame(encodeRef(result))]
        case .stitch(let request): return [header, ZMQFrame(encodeStitch(request))]
        case .stitched(let result): return [header, ZMQFrame(encodeStitch(result))]
        case .discard(let request): return [header, ZMQFrame(encodeDiscard(request))]
        case .publish(let grant): return [header, ZMQFrame(encodePublish(grant))]
        case .published(let report): return [header, ZMQFrame(encodePublished(report))]
        case .batch(let batch): return [header, ZMQFrame(encodeBatch(batch))]
        case .verifyBatch(let check): return [header, ZMQFrame(encodeBatchCheck(check))] + (check.listing.map(listingCheckFrames) ?? [])
        case .scan(let scan): return [header, ZMQFrame(encodeScan(scan))]
        case .scanned(let report): return [header, ZMQFrame(encodeScanned(report))] + (report.result.map { [ZMQFrame(encodeRef($0))] } ?? [])
        case .checkListing(let check): return [header] + listingCheckFrames(check)
        case .listingChecked(let answer): return [header, ZMQFrame(encodeListingChecked(answer))]
        case .verify(let request): return [header] + encodeVerify(request)
        case .verified(let report): return [header, ZMQFrame(encodeVerified(report))] + (report.listing.map { [ZMQFrame(encodeListingChecked($0))] } ?? [])
        case .work(let work):
            var writer = ByteWriter(capacity: 22 + work.blocks.count * 17)
            writer.write(work.jobID)
            writer.write(work.itemID)
            writer.write(work.setting.engine.wireValue)
            writer.write(UInt8(clamping: work.setting.level))
            writer.write(UInt32(work.blocks.count))
            for block in work.blocks {
                writer.write(block.file)
                writer.write(block.index)
                writer.write(UInt32(block.dictionaryLength))
                writer.write(UInt32(block.dataLength))
                writer.write(UInt8(block.isLast ? 1 : 0))
            }
            return [header, ZMQFrame(writer.bytes)] + work.blocks.map(\.bytes)
        case .result(let result):
            var writer = ByteWriter(capacity: 20 + result.blocks.count * 12)
            writer.write(result.jobID)
            writer.write(result.itemID)
            writer.write(UInt32(result.blocks.count))
            for block in result.blocks {
                writer.write(block.crc)
                writer.write(UInt32(block.rawLength))
                writer.write(UInt32(block.bytes.count))
            }
            return [header, ZMQFrame(writer.bytes)] + result.blocks.map(\.bytes)
        }
    }

    /// Decodes frames (routing id already removed). Any defect becomes a `ProtocolError`.
    public static func decode<Frames: Collection<ZMQFrame>>(_ frames: Frames) throws(ProtocolError) -> WireEnvelope {
        var parts = Array(frames)
        guard !parts.isEmpty else { throw .empty }
        let header = try MessageHeader(decoding: parts.removeFirst())
        let message: WireMessage
        switch header.type {
        case .heartbeat: try expectFrames(parts, 0); message = .heartbeat
        case .goodbye: try expectFrames(parts, 0); message = .goodbye
        case .unknownPeer: try expectFrames(parts, 0); message = .unknownPeer
        case .statusRequest: try expectFrames(parts, 0); message = .statusRequest
        case .cancelJob: message = .cancelJob(try jobID(parts))
        case .discarded: message = .discarded(try jobID(parts))
        case .cancel: message = .cancel(try jobID(parts))
        case .workerReady: message = .workerReady(try json(parts, limit: ProtocolLimits.maxHelloBody))
        case .welcome: message = .welcome(try json(parts))
        case .itemFailed: message = .itemFailed(try json(parts))
        case .timing: message = .timing(try json(parts))
        case .clock: message = .clock(try clock(parts))
        case .timings: message = .timings(try timings(parts))
        case .submit: message = .submit(try json(parts))
        case .attach: message = .attach(try json(parts))
        case .submitted: message = .submitted(try json(parts))
        case .jobEvent: message = .jobEvent(try json(parts))
        case .statusReply: message = .statusReply(try json(parts))
        case .error: message = .error(try json(parts))
        case .probe: message = .probe(try json(parts))
        case .probeReply: message = .probeReply(try json(parts))
        case .workRef: message = .workRef(try workRef(parts))
        case .resultRef: message = .resultRef(try resultRef(parts))
        case .stitch: message = .stitch(try stitch(parts))
        case .stitched: message = .stitched(try stitched(parts))
        case .discard: message = .discard(try discard(parts))
        case .publish: message = .publish(try publish(parts))
        case .published: message = .published(try published(parts))
        case .batch: message = .batch(try batch(parts))
        case .verifyBatch: message = .verifyBatch(try batchCheck(parts))
        case .scan: message = .scan(try scan(parts))
        case .scanned: message = .scanned(try scanned(parts))
        case .checkListing: message = .checkListing(try listingCheck(parts))
        case .listingChecked: message = .listingChecked(try listingChecked(parts))
        case .verify: message = .verify(try verify(parts))
        case .verified: message = .verified(try verified(parts))
        case .work: message = .work(try work(parts))
        case .result: message = .result(try result(parts))
        }
        return WireEnvelope(message, correlation: header.correlation)
    }

    // MARK: - Bodies

    private static func json<T: Encodable>(_ body: T) -> [UInt8] {
        // Encoding these plain structs cannot fail; an empty body would be refused by the peer.
        (try? JSONEncoder().encode(body)).map(Array.init) ?? []
    }

    private static func json<T: Decodable>(_ parts: [ZMQFrame], limit: Int = ProtocolLimits.maxControlBody) throws(ProtocolError) -> T {
        try expectFrames(parts, 1)
        let body = parts[0]
        guard body.count <= limit else {
            throw .oversized("control body", size: body.count, limit: limit)
        }
        do {
            return try JSONDecoder().decode(T.self, from: body.withUnsafeBytes { Data($0) })
        } catch let DecodingError.keyNotFound(key, _) {
            throw .malformed("\(T.self): missing field \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(type, context) {
            throw .malformed("\(T.self): field \"\(fieldPath(context))\" is not \(jsonType(type))")
        } catch let DecodingError.valueNotFound(type, context) {
            throw .malformed("\(T.self): field \"\(fieldPath(context))\" is null, expected \(jsonType(type))")
        } catch let DecodingError.dataCorrupted(context) {
            // A number too large for any integer (2^64) fails the JSON parse itself, with no
            // field named: the body is looked at again for the field that holds it.
            if let field = context.codingPath.isEmpty ? oversizedInteger(in: body) : fieldPath(context) {
                throw .malformed("\(T.self): field \"\(field)\" is out of range or invalid")
            }
            throw .malformed("\(T.self): \(context.debugDescription)")
        } catch {
            throw .malformed("\(T.self): \(error)")
        }
    }

    /// The first key in `body` whose value is
    /// an integer literal beyond Int64, which Foundation's parser refuses without naming it.
    static func oversizedInteger(in body: ZMQFrame) -> String? {
        let text = body.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        guard let pattern = try? NSRegularExpression(pattern: #""([^"\\]{1,128})"\s*:\s*(-?[0-9]{19,})"#) else { return nil }
        let range = NSRange(text.startIndex..., in: text)
        for match in pattern.matches(in: text, range: range) {
            guard let key = Range(match.range(at: 1), in: text), let number = Range(match.range(at: 2), in: text) else { continue }
            if Int64(text[number]) == nil { return String(text[key]) }
        }
        return nil
    }

    private static func fieldPath(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    private static func jsonType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int32.Type, is UInt64.Type, is Double.Type: "a number"
        default: "of type \(type)"
        }
    }

    private static func clock(_ parts: [ZMQFrame]) throws(ProtocolError) -> Int64 {
        try expectFrames(parts, 1)
        var reader = ByteReader(parts[0])
        let micros = try reader.read(UInt64.self, "clock")
        try reader.expectEnd("clock")
        guard micros < UInt64(Int64.max / 4) else { throw .malformed("clock \(micros) µs out of range") }
        return Int64(micros)
    }

    private static func timings(_ parts: [ZMQFrame]) throws(ProtocolError) -> Bool {
        try expectFrames(parts, 1)
        guard parts[0].count == 1, let value = parts[0].first, value <= 1 else {
            throw .malformed("timings body must be one byte, 0 or 1")
        }
        return value == 1
    }

    private static func jobID(_ parts: [ZMQFrame]) throws(ProtocolError) -> UInt64 {
        try expectFrames(parts, 1)
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        try reader.expectEnd("job id")
        return job
    }

    static func expectFrames(_ parts: [ZMQFrame], _ count: Int) throws(ProtocolError) {
        guard parts.count == count else { throw .frameCount(expected: count + 1, actual: parts.count + 1) }
    }

    private static func blockCount(_ reader: inout ByteReader) throws(ProtocolError) -> Int {
        let count = Int(try reader.read(UInt32.self, "block count"))
        guard count <= ProtocolLimits.maxBlocksPerItem else {
            throw .tooMany("block count", count: count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        return count
    }

    static func setting(_ reader: inout ByteReader) throws(ProtocolError) -> EngineSetting {
        let engineValue = try reader.read(UInt8.self, "engine")
        let level = Int(try reader.read(UInt8.self, "level"))
        guard let engine = CompressionEngine(wireValue: engineValue) else { throw .malformed("unknown engine \(engineValue)") }
        do {
            return try EngineSetting(engine: engine, level: level)
        } catch {
            throw .malformed("level \(level) outside \(engine.rawValue)'s \(engine.levels.lowerBound)-\(engine.levels.upperBound)")
        }
    }

    private static func work(_ parts: [ZMQFrame]) throws(ProtocolError) -> WorkAssignment {
        guard let table = parts.first else { throw .truncated("work table") }
        var reader = ByteReader(table)
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let setting = try setting(&reader)
        let count = try blockCount(&reader)
        try expectFrames(parts, 1 + count)
        var blocks: [WorkBlock] = []
        blocks.reserveCapacity(count)
        for position in 0..<count {
            let file = try reader.read(UInt32.self, "block file")
            let index = try reader.read(UInt32.self, "block index")
            let dictionary = Int(try reader.read(UInt32.self, "dictionary length"))
            let data = Int(try reader.read(UInt32.self, "data length"))
            let last = try reader.read(UInt8.self, "last flag")
            guard dictionary <= ProtocolLimits.maxDictionarySize else {
                throw .oversized("dictionary", size: dictionary, limit: ProtocolLimits.maxDictionarySize)
            }
            guard data <= ProtocolLimits.maxBlockSize else {
                throw .oversized("block", size: data, limit: ProtocolLimits.maxBlockSize)
            }
            guard last <= 1 else { throw .malformed("last flag \(last)") }
            let payload = parts[1 + position]
            guard payload.count == dictionary + data else {
                throw .malformed("block \(position) payload is \(payload.count) bytes, table says \(dictionary + data)")
            }
            blocks.append(WorkBlock(file: file, index: index, dictionaryLength: dictionary, isLast: last == 1, bytes: payload))
        }
        try reader.expectEnd("work table")
        return WorkAssignment(jobID: job, itemID: item, setting: setting, blocks: blocks)
    }

    private static func result(_ parts: [ZMQFrame]) throws(ProtocolError) -> WorkResult {
        guard let table = parts.first else { throw .truncated("result table") }
        var reader = ByteReader(table)
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let count = try blockCount(&reader)
        try expectFrames(parts, 1 + count)
        var blocks: [ResultBlock] = []
        blocks.reserveCapacity(count)
        for position in 0..<count {
            let crc = try reader.read(UInt32.self, "block crc")
            let raw = Int(try reader.read(UInt32.self, "raw length"))
            let compressed = Int(try reader.read(UInt32.self, "compressed length"))
            guard raw <= ProtocolLimits.maxBlockSize else {
                throw .oversized("block", size: raw, limit: ProtocolLimits.maxBlockSize)
            }
            guard compressed <= ProtocolLimits.maxCompressedBytes(forRaw: raw) else {
                throw .malformed("block \(position) of \(compressed) bytes compressed for a \(raw)-byte block")
            }
            let payload = parts[1 + position]
            guard payload.count == compressed else {
                throw .malformed("block \(position) payload is \(payload.count) bytes, table says \(compressed)")
            }
            blocks.append(ResultBlock(crc: crc, rawLength: raw, bytes: payload))
        }
        try reader.expectEnd("result table")
        return WorkResult(jobID: job, itemID: item, blocks: blocks)
    }
}
