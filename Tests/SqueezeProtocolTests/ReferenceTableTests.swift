import SqueezeGzip
import SqueezeProtocol
import Testing

/// The by-reference tables (`workRef`, `resultRef`): every defect a hostile coordinator or
/// worker could put in them is refused before a worker opens a file or a coordinator adds a length.
struct ReferenceTableTests {
    static func decodeError(_ frames: [[UInt8]]) -> ProtocolError? {
        do {
            _ = try WireCodec.decode(frames)
            return nil
        } catch {
            return error
        }
    }

    static func isMalformed(_ error: ProtocolError?) -> Bool {
        if case .malformed = error { true } else { false }
    }

    static func block(
        offset: UInt64 = 0, dictionary: Int = 0, data: Int = 10, size: UInt64 = 10, path: [UInt8] = Array("/a".utf8),
        nanoseconds: Int64 = 0, header: [UInt8]? = nil
    ) -> RefBlock {
        RefBlock(file: 0, index: 0, path: path, offset: offset, dictionaryLength: dictionary, dataLength: data, isLast: true,
                 size: size, modifiedSeconds: 0, modifiedNanoseconds: nanoseconds, inode: 1, permissions: 0o644, header: header)
    }

    static func work(_ blocks: [RefBlock], workspace: [UInt8] = Array("/w".utf8)) -> [[UInt8]] {
        WireCodec.encodeBytes(.workRef(RefAssignment(
            jobID: 1, itemID: 2, attempt: 3, setting: Fixtures.setting(.libdeflate, 6), workspace: workspace, syncPieces: false, blocks: blocks)))
    }

    @Test(arguments: [
        WireCodec.encodeBytes(.workRef(Fixtures.refWork)), WireCodec.encodeBytes(.resultRef(Fixtures.refResult)),
        WireCodec.encodeBytes(.stitch(Fixtures.stitch)), WireCodec.encodeBytes(.stitched(StitchResult(jobID: 1, file: 2, attempt: 3, length: 4, failure: "x"))),
        WireCodec.encodeBytes(.discard(Fixtures.discard)), WireCodec.encodeBytes(.publish(Fixtures.publish)),
        WireCodec.encodeBytes(.published(PublishReport(jobID: 1, itemID: 2, attempt: 3, failures: [PublishFailure(position: 4, reason: "x")]))),
    ])
    func everyPrefixOfATableIsTruncated(frames: [[UInt8]]) {
        for length in 0..<frames[1].count {
            let error = Self.decodeError([frames[0], Array(frames[1].prefix(length))])
            guard case .truncated = error else {
                Issue.record("prefix \(length) of \(frames[1].count): \(String(describing: error))")
                continue
            }
        }
        #expect(Self.decodeError(frames) == nil)
    }

    @Test func aStitchSegmentMustStartWhereItsHeaderSaysAndNotBeyondTheLimit() {
        var segment = Fixtures.stitch
        segment.offset = 13  // the header is 12 bytes
        #expect(Self.isMalformed(Self.decodeError(WireCodec.encodeBytes(.stitch(segment)))))
        segment = Fixtures.middleSegment
        segment.offset = 0  // no header: it cannot start the file
        #expect(Self.isMalformed(Self.decodeError(WireCodec.encodeBytes(.stitch(segment)))))
        segment.offset = UInt64.max - 10  // its pieces' lengths would overflow
        #expect(Self.isMalformed(Self.decodeError(WireCodec.encodeBytes(.stitch(segment)))))
        segment = Fixtures.lastSegment
        segment.trailer = [1, 2, 3]
        #expect(Self.isMalformed(Self.decodeError(WireCodec.encodeBytes(.stitch(segment)))))
        #expect(Self.decodeError(WireCodec.encodeBytes(.stitch(Fixtures.lastSegment))) == nil)
        // A final header (an offset table's lengths) comes only with the last segment, and is a gzip header's length.
        #expect(Self.decodeError(WireCodec.encodeBytes(.stitch(Fixtures.lastSegmentWithTable))) == nil)
        segment = Fixtures.lastSegmentWithTable
        segment.trailer = []
        #expect(Self.isMalformed(Self.decodeError(WireCodec.encodeBytes(.stitch(segment)))))
        segment = Fixtures.lastSegmentWithTable
        segment.finalHeader = [0x1F, 0x8B, 8]
        #expect(Self.isMalformed(Self.decodeError(WireCodec.encodeBytes(.stitch(segment)))))
        segment.finalHeader = [UInt8](repeating: 0, count: ProtocolLimits.maxTableHeaderBytes + 1)
        #expect(Self.decodeError(WireCodec.encodeBytes(.stitch(segment))) != nil)
    }

    @Test func aRangeCheckMustDecodeNothingAndStayWithinTheLimit() {
        func verify(_ range: VerifyRange) -> [[UInt8]] {
            WireCodec.encodeBytes(.verify(VerifyRequest(checkID: 1, jobID: 2, itemID: 0, blocks: [.range(range)])))
        }
        let good = VerifyRange(path: Array("/w/s0-1".utf8), offset: 0, length: 1 << 20)
        #expect(Self.decodeError(verify(good)) == nil)
        var frames = verify(good)
        frames[1][28 + 1] = 1  // a planned length: a range has nothing to decode
        #expect(Self.isMalformed(Self.decodeError(frames)))
        #expect(Self.isMalformed(Self.decodeError(verify(VerifyRange(path: good.path, offset: UInt64.max, length: 1)))))
        #expect(Self.isMalformed(Self.decodeError(verify(VerifyRange(path: good.path, offset: 0, length: UInt64.max)))))
        #expect(Self.decodeError(verify(VerifyRange(path: Array("relative".utf8), offset: 0, length: 1))) != nil)
    }

    @Test func storedCRCsFollowTheFindingsAllOrNone() throws {
        let frames = WireCodec.encodeBytes(.verified(Fixtures.verifiedWithStoredCRCs))
        #expect(Self.decodeError(frames) == nil)
        // One finding's CRC missing, or one too many: not a table.
        #expect(Self.decodeError([frames[0], Array(frames[1].dropLast(4))]) != nil)
        #expect(Self.decodeError([frames[0], frames[1] + [0, 0, 0, 0]]) != nil)
        // Without them (a verifier that does not report them) each finding has none.
        guard case .verified(let report) = try WireCodec.decode(WireCodec.encodeBytes(.verified(Fixtures.verified))).message else {
            Issue.record("not a verified message")
            return
        }
        #expect(report.findings.allSatisfy { $0.storedCRC == nil })
    }

    @Test func aRangeOutsideTheFileIsRefused() {
        #expect(Self.decodeError(Self.work([Self.block(offset: 1, data: 10, size: 10)])) != nil)
        #expect(Self.decodeError(Self.work([Self.block(offset: UInt64.max, data: 1, size: 10)])) != nil)
        #expect(Self.decodeError(Self.work([Self.block(offset: 5, dictionary: 5, data: 1, size: 10)])) != nil)
        #expect(Self.decodeError(Self.work([Self.block(offset: 0, dictionary: 5, data: 5, size: 10)])) == nil)
    }

    @Test func pathsMustBeAbsoluteWithoutNUL() {
        #expect(Self.isMalformed(Self.decodeError(Self.work([Self.block(path: Array("relative".utf8))]))))
        #expect(Self.isMalformed(Self.decodeError(Self.work([Self.block(path: [0x2F, 0x61, 0x00, 0x62])]))))
        #expect(Self.isMalformed(Self.decodeError(Self.work([Self.block(path: [])]))))
        #expect(Self.isMalformed(Self.decodeError(Self.work([Self.block()], workspace: Array("w".utf8)))))
    }

    @Test func aGrantNamesAbsoluteOutputsAtPositionsAnItemCanHave() {
        func grant(_ member: PublishMember, workspace: [UInt8] = Array("/w".utf8)) -> [[UInt8]] {
            WireCodec.encodeBytes(.publish(PublishGrant(jobID: 1, itemID: 2, attempt: 3, workspace: workspace, syncPieces: false, members: [member])))
        }
        #expect(Self.decodeError(grant(PublishMember(position: 0, output: Array("/o.gz".utf8), replace: false))) == nil)
        #expect(Self.isMalformed(Self.decodeError(grant(PublishMember(position: 0, output: Array("o.gz".utf8), replace: false)))))
        #expect(Self.isMalformed(Self.decodeError(grant(PublishMember(position: 0, output: [0x2F, 0x00], replace: false)))))
        #expect(Self.isMalformed(Self.decodeError(grant(PublishMember(position: 0, output: Array("/o.gz".utf8), replace: false), workspace: Array("w".utf8)))))
        let beyond = UInt32(ProtocolLimits.maxBlocksPerItem)
        #expect(Self.isMalformed(Self.decodeError(grant(PublishMember(position: beyond, output: Array("/o.gz".utf8), replace: false)))))
        let report = WireCodec.encodeBytes(.published(PublishReport(jobID: 1, itemID: 2, attempt: 3, failures: [PublishFailure(position: beyond, reason: "")])))
        #expect(Self.isMalformed(Self.decodeError(report)))
        // A flag byte that is neither 0 nor 1 (the replace flag sits after the member's position).
        var frames = grant(PublishMember(position: 0, output: Array("/o.gz".utf8), replace: true))
        let flagAt = 8 + 8 + 8 + 1 + 4 + 2 + 4 + 4
        #expect(frames[1][flagAt] == 1)
        frames[1][flagAt] = 2
        #expect(Self.isMalformed(Self.decodeError(frames)))
    }

    @Test func compositeBlocksTakeSegmentsThatMakeExactlyTheirBytes() {
        func work(_ segments: [RefSegment]?, dictionary: Int = 0, data: Int = 1536, extraFrame: Bool = false) -> [[UInt8]] {
            var block = Self.block(dictionary: dictionary, data: data, size: 1 << 30)
            block.segments = segments
            var frames = WireCodec.encodeBytes(.workRef(RefAssignment(
                jobID: 1, itemID: 2, attempt: 3, setting: Fixtures.setting(.libdeflate, 6), workspace: Array("/w".utf8), syncPieces: false, blocks: [block])))
            if extraFrame { frames.append([0, 0, 0, 0]) }
            return frames
        }
        #expect(Self.decodeError(work(Fixtures.tarSegments[0])) == nil)
        #expect(Self.decodeError(work(Fixtures.tarSegments[0], dictionary: 36, data: 1500)) == nil)
        // One byte short, one byte over, an empty list for a block of bytes.
        #expect(Self.isMalformed(Self.decodeError(work(Fixtures.tarSegments[0], data: 1537))))
        #expect(Self.isMalformed(Self.decodeError(work(Fixtures.tarSegments[0], data: 1535))))
        #expect(Self.isMalformed(Self.decodeError(work([]))))
        // A file range outside its file, a relative path.
        let outside = RefSegment.file(path: Array("/f".utf8), size: 10, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0, offset: 5, length: 6)
        #expect(Self.isMalformed(Self.decodeError(work([outside, .zeros(1530)]))))
        let relative = RefSegment.file(path: Array("f".utf8), size: 10, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0, offset: 0, length: 6)
        #expect(Self.isMalformed(Self.decodeError(work([relative, .zeros(1530)]))))
        // A segments frame without a composite block, or a composite block without one.
        guard case .frameCount = Self.decodeError(work(nil, extraFrame: true)) else {
            Issue.record("a segments frame without a composite block was accepted")
            return
        }
        var missing = work(Fixtures.tarSegments[0])
        missing.removeLast()
        guard case .frameCount = Self.decodeError(missing) else {
            Issue.record("a composite block without its segments was accepted")
            return
        }
        // An unknown segment kind.
        var unknown = work([.zeros(1536)])
        unknown[2][4] = 9
        #expect(Self.isMalformed(Self.decodeError(unknown)))
    }

    @Test func oversizedPathsAndHeadersAreRefused() {
        let long = [UInt8(ascii: "/")] + [UInt8](repeating: UInt8(ascii: "a"), count: ProtocolLimits.maxPathBytes)
        guard case .oversized = Self.decodeError(Self.work([Self.block(path: long)])) else {
            Issue.record("a path over PATH_MAX was accepted")
            return
        }
        guard case .oversized = Self.decodeError(Self.work([Self.block(header: [UInt8](repeating: 1, count: ProtocolLimits.maxHeaderBytes + 1))])) else {
            Issue.record("an oversized header was accepted")
            return
        }
    }

    @Test func aPlacementMustBePastTheStartAndWithinTheLimitAndNotForAWholeMember() {
        func placed(at offset: UInt64, header: [UInt8]? = nil) -> [[UInt8]] {
            var block = Self.block(header: header)
            block.placement = RefPlacement(attempt: 4, offset: offset)
            return Self.work([block])
        }
        #expect(Self.isMalformed(Self.decodeError(placed(at: 0))))
        #expect(Self.isMalformed(Self.decodeError(placed(at: ProtocolLimits.maxPlacementOffset + 1))))
        #expect(Self.isMalformed(Self.decodeError(placed(at: 10, header: [0x1F, 0x8B]))))
        #expect(Self.decodeError(placed(at: ProtocolLimits.maxPlacementOffset)) == nil)
        var flags = placed(at: 10)
        // The block flags byte sits after the fixed fields: setting an unknown bit is refused.
        let flagsIndex = 8 + 8 + 8 + 1 + 1 + 1 + 4 + 2 + 4 + 4 + 4 + 8 + 4 + 4
        #expect(flags[1][flagsIndex] == 5)
        flags[1][flagsIndex] = 13
        #expect(Self.isMalformed(Self.decodeError(flags)))
    }

    @Test func badNanosecondsAreRefused() {
        #expect(Self.isMalformed(Self.decodeError(Self.work([Self.block(nanoseconds: 1_000_000_000)]))))
        #expect(Self.isMalformed(Self.decodeError(Self.work([Self.block(nanoseconds: -1)]))))
    }

    @Test func aPieceLongerThanDeflateCanMakeIsRefused() {
        let result = RefResult(jobID: 1, itemID: 2, attempt: 3, pieces: [PieceReport(crc: 0, rawLength: 100, pieceLength: 100 + 12 + 4096 + 1)])
        #expect(Self.isMalformed(Self.decodeError(WireCodec.encodeBytes(.resultRef(result)))))
        let fine = RefResult(jobID: 1, itemID: 2, attempt: 3, pieces: [PieceReport(crc: 0, rawLength: 100, pieceLength: 100 + 12 + 4096)])
        #expect(Self.decodeError(WireCodec.encodeBytes(.resultRef(fine))) == nil)
    }

    @Test func aBlockOverTheSizeLimitIsRefused() {
        let result = RefResult(jobID: 1, itemID: 2, attempt: 3, pieces: [PieceReport(crc: 0, rawLength: ProtocolLimits.maxBlockSize + 1, pieceLength: 1)])
        guard case .oversized = Self.decodeError(WireCodec.encodeBytes(.resultRef(result))) else {
            Issue.record("a block over the limit was accepted")
            return
        }
    }

    @Test("a resultRef's stored CRCs follow its pieces, one each or none; any other tail is refused")
    func storedCRCsFollowThePiecesAllOrNone() throws {
        let pieces = [PieceReport(crc: 1, rawLength: 100, pieceLength: 50, storedCRC: 0xABCD_0123), PieceReport(crc: 2, rawLength: 100, pieceLength: 60)]
        let frames = WireCodec.encodeBytes(.resultRef(RefResult(jobID: 1, itemID: 2, attempt: 3, pieces: pieces)))
        guard case .resultRef(let decoded) = try WireCodec.decode(frames).message else {
            Issue.record("not a resultRef")
            return
        }
        // One reported, the other 0: "none" is not told apart on the wire.
        #expect(decoded.pieces.map(\.storedCRC) == [0xABCD_0123, 0])
        let without = WireCodec.encodeBytes(.resultRef(RefResult(jobID: 1, itemID: 2, attempt: 3, pieces: pieces.map { var piece = $0; piece.storedCRC = nil; return piece })))
        #expect(without[1].count == frames[1].count - 8)
        guard case .resultRef(let bare) = try WireCodec.decode(without).message else {
            Issue.record("not a resultRef")
            return
        }
        #expect(bare.pieces.allSatisfy { $0.storedCRC == nil })
        // A tail of another length than 4 bytes a piece.
        for extra in [1, 4, 12] {
            let tail = [without[0], without[1] + [UInt8](repeating: 7, count: extra)]
            #expect(Self.isMalformed(Self.decodeError(tail)), "\(extra) bytes after the pieces")
        }
    }
}
