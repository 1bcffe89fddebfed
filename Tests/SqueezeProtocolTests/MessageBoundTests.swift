import SqueezeGzip
import SqueezeZMQ
import Testing
@testable import SqueezeProtocol

/// Each message type's bound (`MessageType.bound`) against what the codec writes and accepts,
/// and the sockets' receive limits built on them.
@Suite("Message bounds")
struct MessageBoundTests {
    static func bytes(_ frames: [ZMQFrame]) -> Int { frames.reduce(0) { $0 + $1.count } }

    /// A path of exactly `count` bytes, absolute.
    static func path(_ count: Int) -> [UInt8] { [UInt8(ascii: "/")] + [UInt8](repeating: 0x70, count: count - 1) }

    @Test("every sample of every type fits its type's bound, and the sockets it goes to take it", arguments: MessageType.allCases)
    func samplesFit(type: MessageType) {
        let routingID = ZMQFrame(Array("worker-7f3a".utf8))
        let workers = ProtocolReceiveLimits.coordinatorWorkers { _ in true }
        for message in Fixtures.messages(of: type) {
            let frames = WireCodec.encode(message, correlation: 3)
            #expect(type.bound.admits(frames: frames.count, bytes: Self.bytes(frames)), "\(message.type): \(frames.count) frames, \(Self.bytes(frames)) bytes")
            let routed = (frames.count + 1, Self.bytes(frames) + routingID.count)
            let sockets: [(Set<MessageType>, ZMQMessageBound)] = [
                (MessageType.fromWorkers, workers.bound([routingID, frames[0]])),
                (MessageType.fromClients, ProtocolReceiveLimits.coordinatorClients.bound([routingID, frames[0]])),
            ]
            for (types, bound) in sockets where types.contains(type) {
                #expect(bound.admits(frames: routed.0, bytes: routed.1), "\(type) on a coordinator socket")
            }
            for (types, limit) in [(MessageType.toWorkers, ProtocolReceiveLimits.worker), (MessageType.toClients, ProtocolReceiveLimits.client)]
            where types.contains(type) {
                #expect(limit.bound([frames[0]]).admits(frames: frames.count, bytes: Self.bytes(frames)), "\(type) on a DEALER")
            }
        }
    }

    @Test("the bounds of bodyless and fixed-size types are exact, and no frame of any type is larger than maxFrameSize")
    func smallTypesAndFrames() {
        #expect(MessageType.heartbeat.bound == ZMQMessageBound(frames: 1, bytes: 16))
        #expect(MessageType.statusRequest.bound == ZMQMessageBound(frames: 1, bytes: 16))
        #expect(MessageType.cancel.bound == ZMQMessageBound(frames: 2, bytes: 24))
        #expect(MessageType.workerReady.bound == ZMQMessageBound(frames: 2, bytes: 16 + ProtocolLimits.maxHelloBody))
        #expect(MessageType.result.bound.frames == 2 + ProtocolLimits.maxBlocksPerItem)
        #expect(MessageType.verify.bound.frames == 3 + 2 * ProtocolLimits.maxBlocksPerItem)
        let largestFrames = [
            WireCodec.maxWorkTable, WireCodec.maxResultTable, WireCodec.maxWorkRefTable, WireCodec.maxResultRefTable,
            WireCodec.maxStitchTable, WireCodec.maxStitchedTable, WireCodec.maxDiscardTable, WireCodec.maxVerifyTable,
            WireCodec.maxVerifiedTable, ProtocolLimits.maxSegmentsFrame, WireCodec.maxPublishTable, WireCodec.maxPublishedTable, WireCodec.maxScanTable, WireCodec.maxScannedTable, ProtocolLimits.maxControlBody, ProtocolLimits.maxDictionarySize + ProtocolLimits.maxBlockSize,
            ProtocolLimits.maxCompressedBytes(forRaw: ProtocolLimits.maxBlockSize),
        ]
        #expect(largestFrames.allSatisfy { Int64($0) <= ProtocolLimits.maxFrameSize })
    }

    @Test("the bounds are the ones docs/protocol.md lists")
    func documentedBounds() {
        let documented: [MessageType: (frames: Int, bytes: Int)] = [
            .heartbeat: (1, 16), .goodbye: (1, 16), .unknownPeer: (1, 16), .statusRequest: (1, 16),
            .cancelJob: (2, 24), .cancel: (2, 24), .discarded: (2, 24), .clock: (2, 24), .timings: (2, 17),
            .workerReady: (2, 1_048_592),
            .welcome: (2, 8_388_624), .itemFailed: (2, 8_388_624), .timing: (2, 8_388_624), .probe: (2, 8_388_624),
            .probeReply: (2, 8_388_624), .submit: (2, 8_388_624), .attach: (2, 8_388_624), .submitted: (2, 8_388_624),
            .jobEvent: (2, 8_388_624), .statusReply: (2, 8_388_624), .error: (2, 8_388_624),
            .work: (8_194, 537_010_214), .result: (8_194, 335_642_660), .verify: (16_387, 743_030_828),
            .verified: (3, 8_527_916), .workRef: (3, 105_558_067), .resultRef: (2, 8_585_260),
            .stitch: (2, 1_971_295), .stitched: (2, 1_072), .discard: (2, 1_314_848),
            .publish: (2, 33_632_305), .published: (2, 8_454_188),
            .batch: (2, 33_890_365), .verifyBatch: (4, 35_022_247),
            .scan: (2, 1_066_332), .scanned: (3, 27_212_621), .checkListing: (3, 1_066_356), .listingChecked: (2, 32),
        ]
        #expect(Set(documented.keys) == Set(MessageType.allCases))
        for (type, bound) in documented {
            #expect(type.bound == ZMQMessageBound(frames: bound.frames, bytes: bound.bytes), "\(type)")
        }
        #expect(ProtocolLimits.maxFrameSize == 75_501_568)
    }

    @Test("the longest tables the decoders accept are as long as the bounds say, and no longer")
    func longestTables() throws {
        let blocks = ProtocolLimits.maxBlocksPerItem
        let failure = String(repeating: "f", count: 2_000)  // cut to the longest reason on the way out
        let header = [UInt8](repeating: 0x1F, count: ProtocolLimits.maxHeaderBytes)
        let workspace = Self.path(ProtocolLimits.maxPathBytes)

        let work = WireMessage.work(WorkAssignment(jobID: 1, itemID: 2, setting: Fixtures.setting(.zlib, 6), blocks: (0..<blocks).map {
            WorkBlock(file: UInt32($0), index: 0, dictionaryLength: 0, isLast: true, bytes: ZMQFrame([]))
        }))
        let result = WireMessage.result(WorkResult(jobID: 1, itemID: 2, blocks: (0..<blocks).map { _ in
            ResultBlock(crc: 0, rawLength: 0, bytes: ZMQFrame([]))
        }))
        var longest = PieceReport(failure: failure)
        longest.storedCRC = 7
        let resultRef = WireMessage.resultRef(RefResult(jobID: 1, itemID: 2, attempt: 3, pieces: Array(repeating: longest, count: blocks)))
        let verified = WireMessage.verified(VerifyReport(checkID: 1, findings: Array(
            repeating: VerifyFinding(outcome: .unreadable, storedCRC: 7, reason: failure), count: blocks)))
        let pieces = (0..<WireCodec.maxStitchPieces).map { StitchPiece(item: UInt64($0), attempt: 1, position: 0, length: 1) }
        // A stitch's headers may carry an offset table: the first and the final one at their longest.
        let tableHeader = [UInt8](repeating: 0x1F, count: ProtocolLimits.maxTableHeaderBytes)
        let stitch = WireMessage.stitch(StitchRequest(
            jobID: 1, file: 2, attempt: 3, workspace: workspace, offset: UInt64(tableHeader.count), syncResult: true, permissions: 0o644,
            modifiedSeconds: 0, modifiedNanoseconds: 0, header: tableHeader, trailer: [UInt8](repeating: 1, count: 8), pieces: pieces,
            finalHeader: tableHeader))
        let stitched = WireMessage.stitched(StitchResult(jobID: 1, file: 2, attempt: 3, length: 0, failure: failure))
        let discard = WireMessage.discard(PieceDiscard(jobID: 1, workspace: workspace, pieces: pieces))
        let publish = WireMessage.publish(PublishGrant(
            jobID: 1, itemID: 2, attempt: 3, workspace: workspace, syncPieces: true,
            members: (0..<blocks).map { PublishMember(position: UInt32($0), output: Self.path(ProtocolLimits.maxPathBytes), replace: true) }))
        let published = WireMessage.published(PublishReport(
            jobID: 1, itemID: 2, attempt: 3, failures: (0..<blocks).map { PublishFailure(position: UInt32($0), reason: failure) }))
        let verify = WireMessage.verify(VerifyRequest(checkID: 1, jobID: 2, itemID: 3, blocks: Array(repeating: .reference(VerifyReference(
            sourcePath: Self.path(ProtocolLimits.maxPathBytes), size: 0, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0,
            sourceOffset: 0, dictionaryLength: 0, rawLength: 0, isLast: true,
            compressedPath: Self.path(ProtocolLimits.maxPathBytes), compressedOffset: 0, compressedLength: 0, header: header)), count: blocks)))
        // A whole member's header rules out a placement, so a valid reference table stays a little below its bound.
        let workRef = WireMessage.workRef(RefAssignment(
            jobID: 1, itemID: 2, attempt: 3, setting: Fixtures.setting(.zlib, 6), workspace: workspace, syncPieces: true,
            blocks: Array(repeating: RefBlock(
                file: 0, index: 0, path: Self.path(ProtocolLimits.maxPathBytes), offset: 0, dictionaryLength: 0, dataLength: 0, isLast: true,
                size: 0, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0, permissions: 0, header: header), count: blocks)))

        let exact: [(WireMessage, Int)] = [
            (work, WireCodec.maxWorkTable), (result, WireCodec.maxResultTable), (resultRef, WireCodec.maxResultRefTable),
            (verified, WireCodec.maxVerifiedTable), (stitch, WireCodec.maxStitchTable), (stitched, WireCodec.maxStitchedTable),
            (discard, WireCodec.maxDiscardTable), (verify, WireCodec.maxVerifyTable),
            (publish, WireCodec.maxPublishTable), (published, WireCodec.maxPublishedTable),
        ]
        for (message, longest) in exact {
            let frames = WireCodec.encode(message)
            #expect(frames[1].count == longest, "\(message.type) table")
            #expect(try WireCodec.decode(frames).message.type == message.type)
            #expect(message.type.bound.admits(frames: frames.count, bytes: Self.bytes(frames)))
        }
        let refFrames = WireCodec.encode(workRef)
        #expect(refFrames[1].count <= WireCodec.maxWorkRefTable && refFrames[1].count > WireCodec.maxWorkRefTable - blocks * 16 - 1)
        #expect(try WireCodec.decode(refFrames).message == workRef)
    }

    @Test("the coordinator's workers' socket takes only what workers send, and from an unregistered peer only the handshake")
    func coordinatorWorkersLimit() {
        let known = ZMQFrame(Array("known".utf8))
        let stranger = ZMQFrame(Array("stranger".utf8))
        let limit = ProtocolReceiveLimits.coordinatorWorkers { $0 == known }
        func header(_ type: MessageType) -> ZMQFrame { ZMQFrame(MessageHeader(type: type).encoded()) }
        #expect(limit.leadingFrames == 2)
        #expect(limit.bound([known, header(.result)]) == MessageType.result.bound.adding(frames: 1, bytes: 5))
        #expect(limit.bound([stranger, header(.result)]) == .nothing)
        #expect(limit.bound([stranger, header(.resultRef)]) == .nothing)
        #expect(limit.bound([stranger, header(.workerReady)]) == MessageType.workerReady.bound.adding(frames: 1, bytes: 8))
        #expect(limit.bound([stranger, header(.heartbeat)]) == ZMQMessageBound(frames: 2, bytes: 8 + 16))
        #expect(limit.bound([stranger, header(.goodbye)]) == ZMQMessageBound(frames: 2, bytes: 8 + 16))
        #expect(limit.bound([known, header(.statusRequest)]) == .nothing)
        #expect(limit.bound([known, header(.work)]) == .nothing)
        #expect(limit.bound([known, ZMQFrame(Array("junk".utf8))]) == .nothing)
        #expect(limit.bound([known]) == .nothing)
        #expect(ProtocolReceiveLimits.coordinatorClients.bound([stranger, header(.submit)]) == MessageType.submit.bound.adding(frames: 1, bytes: 8))
        #expect(ProtocolReceiveLimits.coordinatorClients.bound([stranger, header(.result)]) == .nothing)
        #expect(ProtocolReceiveLimits.worker.bound([header(.work)]) == MessageType.work.bound)
        #expect(ProtocolReceiveLimits.worker.bound([header(.result)]) == .nothing)
        #expect(ProtocolReceiveLimits.client.bound([header(.statusReply)]) == MessageType.statusReply.bound)
        #expect(ProtocolReceiveLimits.client.bound([header(.submit)]) == .nothing)
    }

    @Test("a dropped message reads as its header's defect, or as more frames or bytes than its type allows, or as fitting its type")
    func droppedMessages() {
        let peer = ZMQFrame(Array("peer".utf8))
        func header(_ type: MessageType) -> ZMQFrame { ZMQFrame(MessageHeader(type: type).encoded()) }
        let flood = DroppedMessage(ZMQDroppedMessage(leading: [peer, header(.heartbeat)], frames: 4_802, bytes: 4 + 16 + 4_800 * (128 << 10),
                                                     bound: ZMQMessageBound(frames: 2, bytes: 20)), routed: true)
        #expect(flood.header?.type == .heartbeat)
        #expect(flood.defect == .tooMany("frames of a heartbeat", count: 4_801, limit: 1))
        let heavy = DroppedMessage(ZMQDroppedMessage(leading: [header(.submit)], frames: 2, bytes: 16 + (9 << 20), bound: MessageType.submit.bound),
                                   routed: false)
        #expect(heavy.defect == .oversized("submit message", size: 16 + (9 << 20), limit: 16 + ProtocolLimits.maxControlBody))
        let fitting = DroppedMessage(ZMQDroppedMessage(leading: [peer, header(.result)], frames: 4, bytes: 4 + 16 + 200, bound: .nothing), routed: true)
        #expect(fitting.header?.type == .result && fitting.defect == nil)
        let junk = DroppedMessage(ZMQDroppedMessage(leading: [peer, ZMQFrame(Array("junk".utf8))], frames: 2, bytes: 8, bound: .nothing), routed: true)
        #expect(junk.header == nil && junk.defect == .badMagic)
        let long = DroppedMessage(ZMQDroppedMessage(leading: [peer], frames: 2, bytes: 4 + 300, bound: nil), routed: true)
        #expect(long.header == nil && long.defect == .malformed("a header frame longer than 255 bytes"))
    }

    @Test("the decoders refuse a compressed block longer than deflate's worst case, and a workerReady body over its limit")
    func newDecoderLimits() {
        let raw = 1_000
        let tooLong = ZMQFrame([UInt8](repeating: 0, count: ProtocolLimits.maxCompressedBytes(forRaw: raw) + 1))
        let result = WireCodec.encode(.result(WorkResult(jobID: 1, itemID: 2, blocks: [ResultBlock(crc: 0, rawLength: raw, bytes: tooLong)])))
        #expect(throws: ProtocolError.malformed("block 0 of \(tooLong.count) bytes compressed for a 1000-byte block")) { try WireCodec.decode(result) }
        let verify = WireCodec.encode(.verify(VerifyRequest(checkID: 1, jobID: 2, itemID: 3, blocks: [
            .inline(InlineVerifyBlock(dictionary: ZMQFrame([]), deflate: tooLong, rawLength: raw, isLast: true)),
        ])))
        #expect(throws: ProtocolError.malformed("block 0 of \(tooLong.count) bytes compressed for a 1000-byte block")) { try WireCodec.decode(verify) }
        var hello = Fixtures.hello
        hello.host = String(repeating: "h", count: ProtocolLimits.maxHelloBody)
        let frames = WireCodec.encode(.workerReady(hello))
        #expect(throws: ProtocolError.oversized("control body", size: frames[1].count, limit: ProtocolLimits.maxHelloBody)) { try WireCodec.decode(frames) }
    }
}
