import SqueezeProtocol
import Testing

/// The scan tables (`scan`, `scanned`): a directory that could leave the root, a name that is
/// not one component, a listing beyond the limits, or pieces that are not the small files' is
/// refused before the worker opens anything or the coordinator plans anything.
struct ScanTableTests {
    static func scan(directory: String = "a/b", after: [UInt8] = [], exclude: [UInt8] = [], entries: Int = 4096) -> [[UInt8]] {
        WireCodec.encodeBytes(.scan(ScanAssignment(
            jobID: 1, itemID: 2, attempt: 3, setting: Fixtures.setting(.libdeflate, 6), headerLevel: 6, syncPieces: false,
            smallFileBytes: 1 << 20, maxEntries: entries, maxSmallBytes: 4 << 20, workspace: Array("/w".utf8), root: Array("/r".utf8),
            destination: Array("/o".utf8), directory: Array(directory.utf8), after: after, exclude: exclude)))
    }

    static func file(_ name: [UInt8], size: UInt64 = 10) -> BatchFile {
        BatchFile(relativePath: name, size: size, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 1, permissions: 0o644)
    }

    static func scanned(small: [BatchFile] = [], large: [BatchFile] = [], subdirectories: [[UInt8]] = [], resume: [UInt8] = [],
                        outcome: ScanOutcome = .listed, pieces: [PieceReport]? = nil, attempt: UInt64 = 3, directory: [UInt8] = [],
                        sections: Int = 1) -> [[UInt8]] {
        let result = small.isEmpty && pieces == nil ? nil
            : RefResult(jobID: 1, itemID: 2, attempt: attempt, pieces: pieces ?? small.map { PieceReport(crc: 0, rawLength: Int($0.size), pieceLength: 30) })
        let section = ScanSection(
            directory: directory, resumeAfter: resume, smallFiles: small, largeFiles: large, subdirectories: subdirectories)
        let listed = outcome == .listed || !(small.isEmpty && large.isEmpty && subdirectories.isEmpty)
        return WireCodec.encodeBytes(.scanned(ScanReport(
            jobID: 1, itemID: 2, attempt: 3, outcome: outcome, sections: listed ? Array(repeating: section, count: sections) : [], result: result)))
    }

    @Test(arguments: [WireCodec.encodeBytes(.scan(Fixtures.scan)), WireCodec.encodeBytes(.scanned(Fixtures.scanned))])
    func everyPrefixOfTheTableIsTruncated(frames: [[UInt8]]) {
        for length in 0..<frames[1].count {
            let error = ReferenceTableTests.decodeError([frames[0], Array(frames[1].prefix(length))] + frames.dropFirst(2))
            guard case .truncated = error else {
                Issue.record("prefix \(length) of \(frames[1].count): \(String(describing: error))")
                continue
            }
        }
        #expect(ReferenceTableTests.decodeError(frames) == nil)
    }

    @Test(arguments: ["/etc", "..", "../x", "a/../../x", "a/./b", ".", "a//b", "a/", "a\0b"])
    func aDirectoryThatCouldLeaveTheRootIsRefused(directory: String) {
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.scan(directory: directory))))
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.scan(exclude: Array(directory.utf8)))))
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.scanned(directory: Array(directory.utf8)))))
    }

    @Test(arguments: [Array("a/b".utf8), Array("..".utf8), Array(".".utf8), [0x61, 0], [UInt8](repeating: 0x61, count: 256)])
    func aNameThatIsNotOneComponentIsRefused(name: [UInt8]) {
        let tooLong = name.count > ProtocolLimits.maxNameBytes
        for frames in [
            Self.scan(after: name), Self.scanned(small: [Self.file(name)]), Self.scanned(large: [Self.file(name, size: 1 << 30)]),
            Self.scanned(subdirectories: [name]), Self.scanned(resume: name),
        ] {
            let error = ReferenceTableTests.decodeError(frames)
            #expect(ReferenceTableTests.isMalformed(error) || (tooLong && error != nil), "\(String(describing: error))")
        }
    }

    @Test func aRootScanAndNamesOfAnyOtherBytesAreTaken() throws {
        let odd: [UInt8] = [0xFF, 0x20, 0x2E, 0x2E, 0x2E]
        let decoded = try WireCodec.decode(Self.scanned(small: [Self.file(odd)], subdirectories: [Array("..a".utf8)]))
        guard case .scanned(let report) = decoded.message else {
            Issue.record("decoded as \(decoded.message.type)")
            return
        }
        #expect(report.sections.first?.smallFiles.map(\.relativePath) == [odd] && report.sections.first?.subdirectories == [Array("..a".utf8)])
        #expect(ReferenceTableTests.decodeError(Self.scan(directory: "")) == nil)
    }

    @Test func listingsBeyondTheLimitsAreRefused() {
        let many = (0...ProtocolLimits.maxBlocksPerItem).map { Array("f\($0)".utf8) }
        #expect(ReferenceTableTests.decodeError(Self.scanned(subdirectories: many)) != nil)
        // The bound holds over all sections together, and on the number of sections.
        let half = Array(many.prefix(ProtocolLimits.maxBlocksPerItem / 2 + 1))
        #expect(ReferenceTableTests.decodeError(Self.scanned(subdirectories: Array(half.prefix(2)), sections: 2)) == nil)
        #expect(ReferenceTableTests.decodeError(Self.scanned(subdirectories: half, sections: 2)) != nil)
        #expect(ReferenceTableTests.decodeError(Self.scanned(sections: ProtocolLimits.maxScanSections)) == nil)
        #expect(ReferenceTableTests.decodeError(Self.scanned(sections: ProtocolLimits.maxScanSections + 1)) != nil)
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.scanned(directory: Array("../x".utf8)))))
        // Small files past one item's bytes, or one past a block's.
        let big = UInt64(ProtocolLimits.maxBlockSize)
        let over = (0..<5).map { Self.file(Array("f\($0)".utf8), size: big) }
        #expect(ReferenceTableTests.decodeError(Self.scanned(small: over)) != nil)
        #expect(ReferenceTableTests.decodeError(Self.scanned(small: [Self.file(Array("x".utf8), size: big + 1)])) != nil)
        #expect(ReferenceTableTests.decodeError(Self.scan(entries: 0)) != nil)
        #expect(ReferenceTableTests.decodeError(Self.scan(entries: ProtocolLimits.maxBlocksPerItem + 1)) != nil)
    }

    @Test func piecesMustBeTheSmallFilesOfTheSameAttemptWhenTheyComeWithTheListing() {
        let small = [Self.file(Array("a".utf8)), Self.file(Array("b".utf8))]
        #expect(ReferenceTableTests.decodeError(Self.scanned(small: small)) == nil)
        // One piece short, another attempt's, pieces without small files, small files without pieces.
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.scanned(small: small, pieces: [PieceReport(crc: 0, rawLength: 10, pieceLength: 30)]))))
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.scanned(small: small, attempt: 4))))
        #expect(ReferenceTableTests.decodeError(Self.scanned(pieces: [])) != nil)
        // Small files without pieces: they follow in a resultRef.
        let withoutPieces = Self.scanned(small: small)
        #expect(ReferenceTableTests.decodeError(Array(withoutPieces.prefix(2))) == nil)
    }

    @Test func aScanNotListedListsNothing() {
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(Self.scanned(subdirectories: [Array("a".utf8)], outcome: .unreadable))))
        var frames = Self.scanned(outcome: .unreadable)
        frames[1][24] = 3  // the outcome byte: no such outcome
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(frames)))
    }

    @Test("an entry name is one component of 1 to 255 bytes, without NUL, and not . or ..")
    func entryNames() {
        let dot = UInt8(ascii: ".")
        for name: [UInt8] in [[dot, dot, dot], [dot, 0x61], [0x61, dot], Array(".hidden".utf8), [0xFF, 0xFE], Array(repeating: 0x61, count: 255)] {
            #expect(ScanReport.isEntryName(name), "\(name)")
        }
        for name: [UInt8] in [[], [dot], [dot, dot], Array("a/b".utf8), Array("/".utf8), [0x61, 0], [0], Array(repeating: 0x61, count: 256)] {
            #expect(!ScanReport.isEntryName(name), "\(name)")
        }
    }
}
