import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// The check of a stitched segment, without sockets: the CRC the coordinator expects from the
/// reports, and its own reading of a segment on disk.
@Suite("stitched segments are checked")
struct StitchCheckTests {
    private static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// A segment of three pieces (with the header and trailer of a one-segment file) on disk:
    /// the pieces, the stitched output as a right stitch writes it, and its check.
    private static func segment(in folder: String) throws -> (check: SegmentCheck, output: String, pieces: [[UInt8]]) {
        let header = GzipHeader(fileName: Array("f".utf8), modificationTime: 0, level: 6).encoded()
        let trailer: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let pieces = [bytes(70_000, seed: 1), bytes(1, seed: 2), bytes(3 << 20, seed: 3)]
        var blocks: [PieceBlock] = []
        for (position, piece) in pieces.enumerated() {
            let path = "\(folder)/p9-4-\(position)"
            try Data(piece).write(to: URL(fileURLWithPath: path))
            blocks.append(PieceBlock(path: BytePath(path), crc: 0, rawLength: 0, length: UInt64(piece.count),
                                     storedCRC: CRC32.checksum(piece), item: 9, attempt: 4, position: position))
        }
        let output = "\(folder)/s0-5"
        let whole = header + pieces.joined() + trailer
        try Data(whole).write(to: URL(fileURLWithPath: output))
        let expected = StitchSegment.expectedCRC(
            header: header, pieces: blocks.map { (crc: $0.storedCRC ?? 0, length: $0.length) }, trailer: trailer)
        let check = SegmentCheck(
            id: 1, file: FileKey(job: 1, file: 0), attempt: 5, stitcher: "w", path: BytePath(output),
            range: 0..<UInt64(whole.count), expectedCRC: expected, header: header, pieces: blocks, trailer: trailer)
        return (check, output, pieces)
    }

    @Test("the expected CRC of header, pieces and trailer is that of their bytes joined")
    func expectedCRCIsTheJoinedBytes() {
        let header = Self.bytes(20, seed: 7)
        let pieces = [Self.bytes(65_536, seed: 8), Self.bytes(0, seed: 9), Self.bytes(1_000_003, seed: 10)]
        let trailer = Self.bytes(8, seed: 11)
        let joined = header + pieces.joined() + trailer
        let expected = StitchSegment.expectedCRC(
            header: header, pieces: pieces.map { (crc: CRC32.checksum($0), length: UInt64($0.count)) }, trailer: trailer)
        #expect(expected == CRC32.checksum(joined))
        // A middle segment: no header, no trailer.
        #expect(StitchSegment.expectedCRC(header: [], pieces: pieces.map { (crc: CRC32.checksum($0), length: UInt64($0.count)) }, trailer: [])
            == CRC32.checksum(Array(pieces.joined())))
        // One piece's length wrong is another CRC: the lengths count, not only the CRCs.
        var shifted = pieces.map { (crc: CRC32.checksum($0), length: UInt64($0.count)) }
        shifted[0].length += 1
        #expect(StitchSegment.expectedCRC(header: header, pieces: shifted, trailer: trailer) != expected)
    }

    @Test("a right stitch matches; a changed byte, a short file or a missing one differs")
    func theCoordinatorsOwnReading() throws {
        let folder = try ScratchFolder.make("stitch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (check, output, _) = try Self.segment(in: folder)
        #expect(SegmentChecker.check(check) == .matches)

        // One byte flipped in the middle of the last piece's copy.
        let handle = try #require(FileHandle(forUpdatingAtPath: output))
        try handle.seek(toOffset: check.range.upperBound / 2)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: check.range.upperBound / 2)
        try handle.write(contentsOf: [byte ^ 0x20])
        try handle.close()
        guard case .differs(let reason) = SegmentChecker.check(check) else {
            Issue.record("a corrupt stitch passed")
            return
        }
        #expect(reason.contains("expected"), "\(reason)")

        #expect(truncate(output, off_t(check.range.upperBound - 1)) == 0)
        guard case .differs(let short) = SegmentChecker.check(check) else {
            Issue.record("a short stitch passed")
            return
        }
        #expect(short.contains("cannot read it back"), "\(short)")
        #expect(unlink(output) == 0)
        guard case .differs = SegmentChecker.check(check) else {
            Issue.record("a missing stitch passed")
            return
        }
    }

    @Test("a right stitch whose pieces' reported CRCs were wrong is told apart from a wrong stitch")
    func aWrongReportIsNotAWrongStitch() throws {
        let folder = try ScratchFolder.make("stitch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var (check, _, _) = try Self.segment(in: folder)
        // The second piece's verifier reported another CRC than its bytes have.
        check.pieces[1].storedCRC = (check.pieces[1].storedCRC ?? 0) ^ 1
        check.expectedCRC = StitchSegment.expectedCRC(
            header: check.header, pieces: check.pieces.map { (crc: $0.storedCRC ?? 0, length: $0.length) }, trailer: check.trailer)
        #expect(SegmentChecker.check(check) == .matchesPieces(misreported: [1]))
        // A piece changed after its check: the stitch no longer holds the pieces as they are now.
        try Data(Self.bytes(1, seed: 99)).write(to: URL(fileURLWithPath: check.pieces[1].path.display))
        guard case .differs = SegmentChecker.check(check) else {
            Issue.record("a stitch of other bytes than the pieces passed")
            return
        }
    }

    @Test("what a check read of each piece is kept on that piece, skipping blocks not checked")
    func storedCRCsLandOnTheirPieces() {
        func piece(_ position: Int) -> PieceBlock {
            PieceBlock(path: BytePath("/w/p1-1-\(position)"), crc: 0, rawLength: 1, length: 1, item: 1, attempt: 1, position: position)
        }
        let written = WrittenBlock(
            path: BytePath("/w/p"), offset: 0, length: 1, source: BytePath("/s"),
            stamp: FileStamp(size: 1, modifiedSeconds: 0, modifiedNanoseconds: 0, device: 0, inode: 1, permissions: 0o644),
            sourceRange: 0..<1, dictionaryLength: 0, claim: BlockClaim(crc: 0, rawLength: 1, isLast: true), header: nil)
        var request = VerificationRequest(
            item: ItemKey(job: 1, item: 1), worker: PeerID([1]), expected: [],
            blocks: [.piece(piece(0)), nil, .piece(piece(2))], checks: [.written(written), .skipped, .written(written)])
        request.recordStoredCRCs([0xAAAA, 0xBBBB])
        let stored = request.blocks.map { block -> UInt32? in
            if case .piece(let piece)? = block { piece.storedCRC } else { nil }
        }
        #expect(stored == [0xAAAA, nil, 0xBBBB])
    }
}
