import SqueezeProtocol
import SqueezeZMQ
import Testing

struct RoundTripTests {
    static let correlations: [UInt64] = [0, 1, 0x0102_0304_0506_0708, UInt64.max]

    @Test(arguments: MessageType.allCases)
    func everyMessageRoundTrips(type: MessageType) throws {
        let samples = Fixtures.messages(of: type)
        #expect(!samples.isEmpty)
        for message in samples {
            #expect(message.type == type)
            for correlation in Self.correlations {
                let frames = WireCodec.encodeBytes(message, correlation: correlation)
                let decoded = try WireCodec.decode(frames)
                #expect(decoded == WireEnvelope(message, correlation: correlation))
            }
        }
    }

    @Test(arguments: MessageType.allCases)
    func frameCountsFollowTheType(type: MessageType) {
        for message in Fixtures.messages(of: type) {
            let frames = WireCodec.encodeBytes(message, correlation: 9)
            let expected = switch message {
            case .work(let work): 2 + work.blocks.count
            case .result(let result): 2 + result.blocks.count
            // A segments frame follows when some block's source is composite.
            case .verify(let request):
                2 + 2 * request.blocks.filter { if case .inline = $0 { true } else { false } }.count
                    + (request.blocks.contains { if case .reference(let reference) = $0 { reference.segments != nil } else { false } } ? 1 : 0)
            case .workRef(let work): work.blocks.contains { $0.segments != nil } ? 3 : 2
            // The pieces' table follows when the slice has small files.
            case .scanned(let report): report.result == nil ? 2 : 3
            // The check's table, then the slice's `scan` table.
            case .checkListing: 3
            // A scan's listing check rides as a `checkListing`'s two frames; its answer as one.
            case .verifyBatch(let check): check.listing == nil ? 2 : 4
            case .verified(let report): report.listing == nil ? 2 : 3
            default: Fixtures.bodyless.contains(type) ? 1 : 2
            }
            #expect(frames.count == expected)
            #expect(frames[0] == Fixtures.header(type, correlation: 9))
        }
    }

    @Test func typeBytesAreStable() {
        let expected: [MessageType: UInt8] = [
            .workerReady: 1, .welcome: 2, .heartbeat: 3, .work: 4, .result: 5, .itemFailed: 6, .cancelJob: 7,
            .goodbye: 8, .unknownPeer: 9, .submit: 20, .submitted: 21, .jobEvent: 22, .cancel: 23,
            .statusRequest: 24, .statusReply: 25, .error: 30, .probe: 10, .probeReply: 11, .workRef: 12, .resultRef: 13, .stitch: 14, .stitched: 15, .discard: 16, .discarded: 17,
            .verify: 18, .verified: 19, .attach: 26, .timing: 27, .clock: 28, .timings: 29, .publish: 31, .published: 32,
            .batch: 33, .verifyBatch: 34, .scan: 35, .scanned: 36, .checkListing: 37, .listingChecked: 38,
        ]
        #expect(expected.count == MessageType.allCases.count)
        for type in MessageType.allCases {
            #expect(type.rawValue == expected[type])
        }
    }

    @Test func headerLayout() throws {
        let frame = MessageHeader(type: .submit, correlation: 0x1122_3344_5566_7788).encoded()
        #expect(frame == [0x53, 0x51, 0x02, 20, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0])
        let header = try MessageHeader(decoding: ZMQFrame(frame))
        #expect(header == MessageHeader(type: .submit, correlation: 0x1122_3344_5566_7788))
    }

    @Test func reservedHeaderBytesAreIgnored() throws {
        var frame = Fixtures.header(.heartbeat, correlation: 5)
        frame[12...] = [1, 2, 3, 4]
        #expect(try WireCodec.decode([frame]) == WireEnvelope(.heartbeat, correlation: 5))
    }

    @Test func workLayout() {
        let frames = WireCodec.encodeBytes(.work(Fixtures.multiBlockWork))
        let entries = Fixtures.multiBlockWork.blocks.map {
            Fixtures.WorkEntry(
                file: $0.file, index: $0.index, dictionary: UInt32($0.dictionaryLength),
                data: UInt32($0.dataLength), last: $0.isLast ? 1 : 0
            )
        }
        let table = Fixtures.workTable(job: 7, item: 42, engine: 1, level: 6, entries: entries)
        #expect(table.count == 22 + 17 * entries.count)
        #expect(frames[1] == table)
        #expect(Array(frames[2...]) == Fixtures.multiBlockWork.blocks.map { Array($0.bytes) })
    }

    @Test func resultLayout() {
        let frames = WireCodec.encodeBytes(.result(Fixtures.multiBlockResult))
        let entries = Fixtures.multiBlockResult.blocks.map {
            Fixtures.ResultEntry(crc: $0.crc, raw: UInt32($0.rawLength), compressed: UInt32($0.bytes.count))
        }
        let table = Fixtures.resultTable(job: 7, item: 42, entries: entries)
        #expect(table.count == 20 + 12 * entries.count)
        #expect(frames[1] == table)
        #expect(Array(frames[2...]) == Fixtures.multiBlockResult.blocks.map { Array($0.bytes) })
    }

    @Test func jobIDLayout() {
        let bytes: [UInt8] = [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01]
        #expect(WireCodec.encodeBytes(.cancelJob(0x0102_0304_0506_0708))[1] == bytes)
        #expect(WireCodec.encodeBytes(.cancel(0x0102_0304_0506_0708))[1] == bytes)
    }

    @Test func dictionaryAndDataSplitSurvives() throws {
        let decoded = try WireCodec.decode(WireCodec.encodeBytes(.work(Fixtures.multiBlockWork)))
        guard case .work(let work) = decoded.message else {
            Issue.record("decoded \(decoded.message.type), not work")
            return
        }
        #expect(work.blocks.map(\.dictionaryLength) == [0, 32_768, 0, 100, 7])
        #expect(work.blocks.map(\.dataLength) == [1_000, 500, 0, 0, 13])
        #expect(work.blocks.map(\.isLast) == [false, true, true, true, false])
        #expect(work.dataBytes == 1_513)
    }

    @Test func limitsAreAcceptedExactly() throws {
        // A block of exactly maxBlockSize with a full dictionary, and a result of that raw size.
        let big = WorkBlock(
            file: 0, index: 0, dictionaryLength: ProtocolLimits.maxDictionarySize, isLast: true,
            bytes: ZMQFrame([UInt8](repeating: 0xA5, count: ProtocolLimits.maxDictionarySize + ProtocolLimits.maxBlockSize))
        )
        let work = WireMessage.work(WorkAssignment(jobID: 1, itemID: 1, setting: Fixtures.setting(.isal, 3), blocks: [big]))
        #expect(try WireCodec.decode(WireCodec.encodeBytes(work)).message == work)
        let result = WireMessage.result(WorkResult(jobID: 1, itemID: 1, blocks: [
            ResultBlock(crc: 1, rawLength: ProtocolLimits.maxBlockSize, bytes: [1, 2, 3]),
        ]))
        #expect(try WireCodec.decode(WireCodec.encodeBytes(result)).message == result)
    }

    @Test func maxBlocksPerItemIsAccepted() throws {
        let blocks = (0..<ProtocolLimits.maxBlocksPerItem).map {
            WorkBlock(file: UInt32($0), index: 0, dictionaryLength: 0, isLast: true, bytes: [UInt8(truncatingIfNeeded: $0)])
        }
        let work = WireMessage.work(WorkAssignment(jobID: 3, itemID: 4, setting: Fixtures.setting(.libdeflate, 9), blocks: blocks))
        let frames = WireCodec.encodeBytes(work)
        #expect(frames.count == 2 + ProtocolLimits.maxBlocksPerItem)
        #expect(try WireCodec.decode(frames).message == work)
        let result = WireMessage.result(WorkResult(jobID: 3, itemID: 4, blocks: blocks.map {
            ResultBlock(crc: 0, rawLength: 1, bytes: $0.bytes)
        }))
        #expect(try WireCodec.decode(WireCodec.encodeBytes(result)).message == result)
    }

    @Test func unknownJSONKeysAreIgnored() throws {
        let body = Array(#"{"message":"refused","addedInALaterVersion":[1,2]}"#.utf8)
        let decoded = try WireCodec.decode([Fixtures.header(.error, correlation: 4), body])
        #expect(decoded == WireEnvelope(.error(ErrorReply(message: "refused")), correlation: 4))
    }

    @Test func decodeAcceptsAnyCollectionOfFrames() throws {
        let frames = WireCodec.encodeBytes(.work(Fixtures.multiBlockWork), correlation: 3)
        let slice = frames[...]
        #expect(try WireCodec.decode(slice) == WireEnvelope(.work(Fixtures.multiBlockWork), correlation: 3))
    }
}
