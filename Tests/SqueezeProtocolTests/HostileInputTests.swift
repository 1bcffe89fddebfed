import SqueezeProtocol
import Testing

/// Every defect must surface as the specific `ProtocolError`, never as a crash.
struct HostileInputTests {
    static let validWork = WireCodec.encodeBytes(.work(Fixtures.multiBlockWork))
    static let validResult = WireCodec.encodeBytes(.result(Fixtures.multiBlockResult))

    static func isTruncated(_ error: ProtocolError?) -> Bool {
        if case .truncated = error { true } else { false }
    }

    static func isMalformed(_ error: ProtocolError?) -> Bool {
        if case .malformed = error { true } else { false }
    }

    // MARK: - Header

    @Test func noFrames() {
        #expect(decodeError([]) == .empty)
        #expect(throws: ProtocolError.empty) { try WireCodec.decode([[UInt8]]()[...]) }
    }

    @Test func headerShorterThan16Bytes() {
        let header = Fixtures.header(.heartbeat)
        for length in 0..<ProtocolLimits.headerSize {
            #expect(decodeError([Array(header.prefix(length))]) == .truncated("header"), "length \(length)")
        }
    }

    @Test func headerLongerThan16Bytes() {
        for extra in [1, 2, 16, 1_000] {
            let frame = Fixtures.header(.heartbeat) + [UInt8](repeating: 0, count: extra)
            #expect(decodeError([frame]) == .oversized("header", size: 16 + extra, limit: 16))
        }
    }

    @Test func badMagic() {
        for magic: [UInt8] in [[0x51, 0x53], [0x53, 0x00], [0x00, 0x51], [0xFF, 0xFF], [0x73, 0x71]] {
            var frame = Fixtures.header(.heartbeat)
            frame[0] = magic[0]
            frame[1] = magic[1]
            #expect(decodeError([frame]) == .badMagic)
        }
    }

    @Test func unsupportedVersion() {
        for version: UInt8 in [0, 1, 3, 0x80, 0xFF] {
            var frame = Fixtures.header(.heartbeat)
            frame[2] = version
            #expect(decodeError([frame]) == .unsupportedVersion(version))
        }
    }

    @Test func unknownTypeByte() {
        let known = Set(MessageType.allCases.map(\.rawValue))
        for byte in UInt8.min...UInt8.max where !known.contains(byte) {
            var frame = Fixtures.header(.heartbeat)
            frame[3] = byte
            #expect(decodeError([frame]) == .unknownType(byte))
        }
    }

    // MARK: - Frame counts

    @Test func missingBodyFrame() {
        for type in Fixtures.jsonTypes + Fixtures.jobIDTypes {
            #expect(decodeError([Fixtures.header(type)]) == .frameCount(expected: 2, actual: 1), "\(type)")
        }
        #expect(decodeError([Fixtures.header(.work)]) == .truncated("work table"))
        #expect(decodeError([Fixtures.header(.result)]) == .truncated("result table"))
    }

    @Test func extraFramesOnBodylessTypes() {
        for type in Fixtures.bodyless {
            #expect(decodeError([Fixtures.header(type), []]) == .frameCount(expected: 1, actual: 2), "\(type)")
            #expect(decodeError([Fixtures.header(type), [1], [2]]) == .frameCount(expected: 1, actual: 3), "\(type)")
        }
    }

    @Test func extraFramesOnBodiedTypes() {
        for type in Fixtures.jsonTypes + Fixtures.jobIDTypes {
            let frames = WireCodec.encodeBytes(Fixtures.messages(of: type)[0])
            #expect(decodeError(frames + [[]]) == .frameCount(expected: 2, actual: 3), "\(type)")
        }
    }

    @Test func payloadFramesNotMatchingBlockCount() {
        let work = Self.validWork
        #expect(decodeError(work + [[]]) == .frameCount(expected: work.count, actual: work.count + 1))
        #expect(decodeError(Array(work.dropLast())) == .frameCount(expected: work.count, actual: work.count - 1))
        #expect(decodeError(Array(work.prefix(2))) == .frameCount(expected: work.count, actual: 2))
        let result = Self.validResult
        #expect(decodeError(result + [[1]]) == .frameCount(expected: result.count, actual: result.count + 1))
        #expect(decodeError(Array(result.dropLast())) == .frameCount(expected: result.count, actual: result.count - 1))
    }

    // MARK: - Work and result tables

    @Test func everyPrefixOfAWorkTableIsTruncated() {
        let table = Self.validWork[1]
        let payloads = Array(Self.validWork[2...])
        for length in 0..<table.count {
            let error = decodeError([Self.validWork[0], Array(table.prefix(length))] + payloads)
            #expect(Self.isTruncated(error), "prefix \(length) of \(table.count): \(String(describing: error))")
        }
        #expect(decodeError(Self.validWork) == nil)
    }

    @Test func everyPrefixOfAResultTableIsTruncated() {
        let table = Self.validResult[1]
        let payloads = Array(Self.validResult[2...])
        for length in 0..<table.count {
            let error = decodeError([Self.validResult[0], Array(table.prefix(length))] + payloads)
            #expect(Self.isTruncated(error), "prefix \(length) of \(table.count): \(String(describing: error))")
        }
        #expect(decodeError(Self.validResult) == nil)
    }

    @Test func blockCountAboveTheLimit() {
        let limit = ProtocolLimits.maxBlocksPerItem
        for count in [UInt32(limit + 1), UInt32.max] {
            let work = Fixtures.workTable(count: count, entries: [])
            #expect(decodeError([Fixtures.header(.work), work]) == .tooMany("block count", count: Int(count), limit: limit))
            let result = Fixtures.resultTable(count: count, entries: [])
            #expect(decodeError([Fixtures.header(.result), result]) == .tooMany("block count", count: Int(count), limit: limit))
        }
    }

    @Test func dictionaryOver32KiB() {
        let limit = ProtocolLimits.maxDictionarySize
        #expect(limit == 32 * 1024)
        for size in [limit + 1, Int(UInt32.max)] {
            let table = Fixtures.workTable(entries: [Fixtures.WorkEntry(dictionary: UInt32(size), data: 1)])
            let payload = size == limit + 1 ? [UInt8](repeating: 0, count: size + 1) : []
            #expect(decodeError([Fixtures.header(.work), table, payload]) == .oversized("dictionary", size: size, limit: limit))
        }
    }

    @Test func dataLengthOverMaxBlockSize() {
        let limit = ProtocolLimits.maxBlockSize
        for size in [limit + 1, Int(UInt32.max)] {
            let work = Fixtures.workTable(entries: [Fixtures.WorkEntry(data: UInt32(size))])
            #expect(decodeError([Fixtures.header(.work), work, []]) == .oversized("block", size: size, limit: limit))
            let result = Fixtures.resultTable(entries: [Fixtures.ResultEntry(raw: UInt32(size), compressed: 0)])
            #expect(decodeError([Fixtures.header(.result), result, []]) == .oversized("block", size: size, limit: limit))
        }
    }

    @Test func payloadLengthNotMatchingTheTable() {
        let workTable = Fixtures.workTable(entries: [
            Fixtures.WorkEntry(dictionary: 0, data: 10),
            Fixtures.WorkEntry(dictionary: 4, data: 6),
        ])
        let header = Fixtures.header(.work)
        #expect(decodeError([header, workTable, Fixtures.bytes(10), Fixtures.bytes(10)]) == nil)
        for (first, second) in [(9, 10), (11, 10), (10, 9), (10, 11), (0, 0), (10, 6)] {
            let error = decodeError([header, workTable, Fixtures.bytes(first), Fixtures.bytes(second)])
            #expect(Self.isMalformed(error), "\(first), \(second): \(String(describing: error))")
        }
        let resultTable = Fixtures.resultTable(entries: [Fixtures.ResultEntry(raw: 100, compressed: 5)])
        #expect(decodeError([Fixtures.header(.result), resultTable, Fixtures.bytes(5)]) == nil)
        for length in [0, 4, 6, 100] {
            let error = decodeError([Fixtures.header(.result), resultTable, Fixtures.bytes(length)])
            #expect(Self.isMalformed(error), "\(length): \(String(describing: error))")
        }
    }

    @Test func trailingBytesAfterATable() {
        for extra in [1, 16, 17] {
            var work = Self.validWork
            work[1] += [UInt8](repeating: 0, count: extra)
            #expect(decodeError(work) == .malformed("\(extra) trailing bytes after work table"))
            var result = Self.validResult
            result[1] += [UInt8](repeating: 0xFF, count: extra)
            #expect(decodeError(result) == .malformed("\(extra) trailing bytes after result table"))
        }
    }

    @Test(arguments: [(UInt8(0), "zlib", 9), (1, "libdeflate", 12), (2, "isal", 3), (3, "stored", 0)])
    func levelOutsideTheEnginesRange(engine: UInt8, name: String, top: Int) {
        for level in [UInt8(top + 1), UInt8(top + 2), 0x80, 0xFF] {
            let table = Fixtures.workTable(engine: engine, level: level, entries: [Fixtures.WorkEntry(data: 1)])
            #expect(decodeError([Fixtures.header(.work), table, [0]]) == .malformed("level \(level) outside \(name)'s 0-\(top)"))
        }
        for level in 0...UInt8(top) {
            let table = Fixtures.workTable(engine: engine, level: level, entries: [Fixtures.WorkEntry(data: 1)])
            #expect(decodeError([Fixtures.header(.work), table, [0]]) == nil)
        }
    }

    @Test func unknownEngine() {
        for engine: UInt8 in [4, 5, 0x80, 0xFF] {
            let table = Fixtures.workTable(engine: engine, level: 1, entries: [Fixtures.WorkEntry(data: 1)])
            #expect(decodeError([Fixtures.header(.work), table, [0]]) == .malformed("unknown engine \(engine)"))
        }
    }

    @Test func lastFlagNotZeroOrOne() {
        for flag: UInt8 in [2, 3, 0x80, 0xFF] {
            let table = Fixtures.workTable(entries: [Fixtures.WorkEntry(data: 1, last: flag)])
            #expect(decodeError([Fixtures.header(.work), table, [0]]) == .malformed("last flag \(flag)"))
        }
    }

    // MARK: - JSON bodies

    @Test func garbageJSON() {
        let bodies: [[UInt8]] = [
            [], Array("not json".utf8), [0xFF, 0xFE, 0x00], Array("{".utf8), Array(#"{"workerID":"#.utf8),
            [0x00], Array("null".utf8), Array(#"{"a":1}}"#.utf8),
        ]
        for type in Fixtures.jsonTypes {
            for body in bodies {
                let error = decodeError([Fixtures.header(type), body])
                #expect(Self.isMalformed(error), "\(type) \(body.prefix(16)): \(String(describing: error))")
            }
        }
    }

    @Test func jsonOfTheWrongShape() {
        let wrong: [(MessageType, String)] = [
            (.workerReady, #"{"foo":1}"#),
            (.workerReady, "[]"),
            (.workerReady, "42"),
            (.workerReady, #"{"workerID":1,"host":"h","slots":1,"pid":1}"#),
            (.workerReady, #"{"workerID":"w","host":"h","slots":1,"pid":4294967296}"#),
            (.workerReady, #"{"workerID":"w","host":"h","slots":1e300,"pid":1}"#),
            (.welcome, #"{"heartbeatMilliseconds":"1000","liveness":3}"#),
            (.itemFailed, #"{"jobID":-1,"itemID":1,"reason":"x"}"#),
            (.submit, #"{"source":"/a","level":6}"#),
            (.submitted, #"{"jobID":7}"#),
            (.jobEvent, #"{"event":"nope","path":"a"}"#),
            (.jobEvent, #"{"path":"a","bytesIn":1,"bytesOut":1}"#),
            (.jobEvent, #"{"event":"fileDone","path":"a"}"#),
            (.jobEvent, #"{"event":1}"#),
            (.jobEvent, #"{"fileDone":{"path":"a","bytesIn":1,"bytesOut":1}}"#),
            (.statusReply, #"{"workers":{},"jobs":[]}"#),
            (.statusReply, #"{"workers":[],"jobs":[{"jobID":1,"source":"s","state":"paused","filesDone":0,"files":0,"bytesDone":0,"bytes":0}]}"#),
            (.error, #"{"message":null}"#),
            (.error, #""just a string""#),
        ]
        for (type, text) in wrong {
            let error = decodeError([Fixtures.header(type), Array(text.utf8)])
            #expect(Self.isMalformed(error), "\(type) \(text): \(String(describing: error))")
        }
    }

    @Test func deeplyNestedJSON() {
        for depth in [600, 100_000] {
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let error = decodeError([Fixtures.header(.error), Array(text.utf8)])
            #expect(Self.isMalformed(error), "depth \(depth): \(String(describing: error))")
        }
    }

    @Test func controlBodyAtAndOverTheLimit() {
        let limit = ProtocolLimits.maxControlBody
        let json = Array(#"{"message":"x"}"#.utf8)
        let padded = json + [UInt8](repeating: 0x20, count: limit - json.count)
        #expect(padded.count == limit)
        #expect(decodeError([Fixtures.header(.error), padded]) == nil)
        for type in Fixtures.jsonTypes {
            let error = decodeError([Fixtures.header(type), padded + [0x20]])
            // An announcement is all an unregistered peer may send, so its limit is smaller.
            let typeLimit = type == .workerReady ? ProtocolLimits.maxHelloBody : limit
            #expect(error == .oversized("control body", size: limit + 1, limit: typeLimit), "\(type)")
        }
        let hello = WireCodec.encode(.workerReady(Fixtures.hello))[1]
        let paddedHello = Array(hello) + [UInt8](repeating: 0x20, count: ProtocolLimits.maxHelloBody - hello.count)
        #expect(decodeError([Fixtures.header(.workerReady), paddedHello]) == nil)
        #expect(decodeError([Fixtures.header(.workerReady), paddedHello + [0x20]])
            == .oversized("control body", size: ProtocolLimits.maxHelloBody + 1, limit: ProtocolLimits.maxHelloBody))
    }

    @Test func jobIDBodyOfWrongLength() {
        for type in Fixtures.jobIDTypes {
            for length in [0, 1, 7] {
                #expect(decodeError([Fixtures.header(type), Fixtures.bytes(length)]) == .truncated("job id"), "\(type) \(length)")
            }
            for length in [9, 16, 1_000] {
                let expected = ProtocolError.malformed("\(length - 8) trailing bytes after job id")
                #expect(decodeError([Fixtures.header(type), Fixtures.bytes(length)]) == expected, "\(type) \(length)")
            }
            #expect(decodeError([Fixtures.header(type), Fixtures.bytes(8)]) == nil)
        }
    }

    @Test("a count over its limit is reported as a count, not as bytes")
    func countsAreNotBytes() {
        var table = Array(Self.validWork[1])
        withUnsafeBytes(of: UInt32(9_000).littleEndian) { table[18..<22] = ArraySlice($0) }
        let error = decodeError([Fixtures.header(.work), table])
        #expect(error?.description == "block count 9000 exceeds the limit of 8192")
    }

    @Test func everyErrorDescribesItself() {
        let errors: [ProtocolError] = [
            .empty, .badMagic, .unsupportedVersion(2), .unknownType(99), .truncated("header"),
            .oversized("block", size: 2, limit: 1), .tooMany("block count", count: 9_000, limit: 8_192), .frameCount(expected: 2, actual: 1), .malformed("x"),
        ]
        for error in errors {
            #expect(!error.description.isEmpty)
        }
    }
}

extension HostileInputTests {
    @Test("a number too large for its field is refused with the field's name, not the decoder's words")
    func numberOutOfRangeNamesTheField() {
        let cases: [(MessageType, String, String)] = [
            (.submit, #"{"source":"/a","level":18446744073709551616,"force":false}"#, "level"),
            (.workerReady, #"{"workerID":"w","host":"h","slots":18446744073709551616,"pid":1}"#, "slots"),
            // Within UInt64, beyond Int: the decoder names the field itself.
            (.submit, #"{"source":"/a","level":18446744073709551615,"force":false}"#, "level"),
        ]
        for (type, text, field) in cases {
            let error = decodeError([Fixtures.header(type), Array(text.utf8)])
            guard case .malformed(let reason)? = error else {
                Issue.record("\(type): \(String(describing: error))")
                continue
            }
            #expect(reason.contains("field \"\(field)\" is out of range"), "\(reason)")
        }
    }
}
