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
