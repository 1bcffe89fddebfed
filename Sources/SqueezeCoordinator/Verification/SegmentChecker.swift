import SqueezeGzip
import SqueezeIO

/// The coordinator's own check of a stitched segment: blocking, on a pool thread. It reads the
/// segment's range; only when that disagrees with the expected CRC does it read the pieces too,
/// to tell a wrong stitch from a wrong report about a piece before anyone is blamed.
enum SegmentChecker {
    /// What `check`'s range holds against what it should.
    static func check(_ check: SegmentCheck) -> SegmentFinding {
        let found: UInt32
        do {
            found = try crc(of: check.path, range: check.range)
        } catch {
            return .differs("cannot read it back: \(reason(error))")
        }
        if found == check.expectedCRC { return .matches }
        var pieces = CRC32.checksum(check.header)
        var misreported: [Int] = []
        for (position, piece) in check.pieces.enumerated() {
            do {
                let crc = try Self.crc(of: piece.path, range: piece.offset..<piece.offset + piece.length)
                if crc != piece.storedCRC { misreported.append(position) }
                pieces = CRC32.combine(pieces, crc, secondLength: Int64(clamping: piece.length))
            } catch {
                // A piece gone or cut short since its check: the stitch cannot be shown right.
                return .differs("a piece cannot be read back: \(reason(error))")
            }
        }
        pieces = CRC32.combine(pieces, CRC32.checksum(check.trailer), secondLength: Int64(check.trailer.count))
        guard found == pieces else {
            return .differs("bytes \(check.range.lowerBound)..<\(check.range.upperBound) have CRC-32 \(String(found, radix: 16)), "
                + "\(String(check.expectedCRC, radix: 16)) expected")
        }
        return .matchesPieces(misreported: misreported)
    }

    /// The CRC-32 of `range` of the file at `path` (not following a symlink), read in chunks.
    static func crc(of path: BytePath, range: Range<UInt64>) throws -> UInt32 {
        var crc: UInt32 = 0
        try PieceReader.forEachChunk(path, offset: range.lowerBound, count: range.upperBound - range.lowerBound) {
            crc = CRC32.checksum($0, seed: crc)
        }
        return crc
    }

    private static func reason(_ error: any Error) -> String {
        (error as? FileSystemError)?.reason ?? "\(error)"
    }
}
