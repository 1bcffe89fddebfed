import SqueezeGzip
import SqueezeProtocol
import Testing

/// The batch tables (`batch`, `verifyBatch`): a path that could leave the batch's root, a file
/// or batch beyond the limits, or a piece length no member can have is refused before a worker
/// opens a file.
struct BatchTableTests {
    static func file(_ path: String, size: UInt64 = 10, nanoseconds: Int64 = 0) -> BatchFile {
        BatchFile(relativePath: Array(path.utf8), size: size, modifiedSeconds: 0, modifiedNanoseconds: nanoseconds, inode: 1, permissions: 0o644)
    }

    static func batch(_ files: [BatchFile], root: [UInt8] = Array("/r".utf8)) -> [[UInt8]] {
        WireCodec.encodeBytes(.batch(BatchAssignment(
            jobID: 1, itemID: 2, attempt: 3, setting: Fixtures.setting(.libdeflate, 6), headerLevel: 6, workspace: Array("/w".utf8), root: root,
            syncPieces: false, files: files)))
    }

    static func check(_ files: [BatchFile], lengths: [UInt64]) -> [[UInt8]] {
        WireCodec.encodeBytes(.verifyBatch(BatchCheck(
            checkID: 1, jobID: 1, itemID: 2, attempt: 3, headerLevel: 6, workspace: Array("/w".utf8), root: Array("/r".utf8), files: files,
            pieceLengths: lengths)))
    }

    @Test(arguments: [
        WireCodec.encodeBytes(.batch(Fixtures.batch)), WireCodec.encodeBytes(.verifyBatch(Fixtures.batchCheck)),
    ])
    func everyPrefixOfATableIsTruncated(frames: [[UInt8]]) {
        for length in 0..<frames[1].count {
            let error = ReferenceTableTests.decodeError([frames[0], Array(frames[1].prefix(length))])
            guard case .truncated = error else {
                Issue.record("prefix \(length) of \(frames[1].count): \(String(describing: error))")
                continue
            }
        }
        #expect(ReferenceTableTests.decodeError(frames) == nil)
    }

    @Test("a listing check rides in a verifyBatch as a checkListing's two frames, and its answer in the verified; any other frame count is refused")
    func listingCheckFrames() throws {
        let frames = WireCodec.encodeBytes(.verifyBatch(Fixtures.batchCheckWithListing))
        #expect(frames.count == 4)
        let listing = try #require(Fixtures.batchCheckWithListing.listing)
        #expect(Array(frames[2...]) == Array(WireCodec.encodeBytes(.checkListing(listing))[1...]), "the frames a checkListing has")
        #expect(try WireCodec.decode(frames).message == .verifyBatch(Fixtures.batchCheckWithListing))
        #expect(try WireCodec.decode(frames.prefix(2)).message == .verifyBatch(Fixtures.batchCheck))
        #expect(ReferenceTableTests.decodeError(Array(frames.prefix(3))) != nil, "a listing check without its scan")
        // A listing check that breaks a scan's rules is refused as a checkListing's would be.
        var bad = Fixtures.batchCheckWithListing
        bad.listing?.scan.directory = Array("../x".utf8)
        #expect(ReferenceTableTests.decodeError(WireCodec.encodeBytes(.verifyBatch(bad))) != nil)

        let answer = WireCodec.encodeBytes(.verified(Fixtures.verifiedWithListing))
        #expect(answer.count == 3)
        #expect(try WireCodec.decode(answer).message == .verified(Fixtures.verifiedWithListing))
        #expect(ReferenceTableTests.decodeError(answer + [answer[2]]) != nil, "one answer at most")
        #expect(ReferenceTableTests.decodeError([answer[0], answer[1], [1, 2, 3]]) != nil, "a short answer")
    }

    @Test(arguments: ["/etc/passwd", "..", "../x", "a/../../x", "a/./b", ".", "a//b", "a/", "", "a\0b"])
    func aPathThatCouldLeaveTheRootIsRefused(path: String) {
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.batch([Self.file("ok"), Self.file(path)]))))
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.check([Self.file(path)], lengths: [20]))))
    }

    @Test(arguments: ["a", "a/b/c", "..a", "a..", ".hidden/x", "a b/ü"])
    func aPathBelowTheRootIsTaken(path: String) throws {
        let decoded = try WireCodec.decode(Self.batch([Self.file(path)]))
        guard case .batch(let batch) = decoded.message else {
            Issue.record("decoded as \(decoded.message.type)")
            return
        }
        #expect(batch.files.first?.relativePath == Array(path.utf8))
    }

    @Test func aRelativeRootIsRefused() {
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.batch([Self.file("a")], root: Array("r".utf8)))))
    }

    @Test func filesAndBatchesBeyondTheLimitsAreRefused() {
        let big = UInt64(ProtocolLimits.maxBlockSize)
        #expect(ReferenceTableTests.decodeError(Self.batch([Self.file("a", size: big)])) == nil)
        if case .oversized = ReferenceTableTests.decodeError(Self.batch([Self.file("a", size: big + 1)])) {} else {
            Issue.record("a file of more than a block was taken")
        }
        if case .oversized = ReferenceTableTests.decodeError(Self.batch([Self.file("a", size: UInt64.max)])) {} else {
            Issue.record("a file of 2^64-1 bytes was taken")
        }
        let five = (0..<5).map { Self.file("f\($0)", size: big) }
        if case .oversized = ReferenceTableTests.decodeError(Self.batch(five)) {} else {
            Issue.record("a batch of more than an item's bytes was taken")
        }
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.batch([Self.file("a", nanoseconds: 1_000_000_000)]))))
    }

    @Test func aPieceLengthNoMemberCanHaveIsRefused() {
        #expect(ReferenceTableTests.decodeError(Self.check([Self.file("a", size: 0)], lengths: [20])) == nil)
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.check([Self.file("a", size: 0)], lengths: [17]))))
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.check([Self.file("a", size: 10)], lengths: [1 << 40]))))
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.check([Self.file("a", size: 10)], lengths: [UInt64.max]))))
    }
}
