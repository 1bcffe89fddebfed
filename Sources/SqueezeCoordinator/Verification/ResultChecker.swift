import SqueezeGzip
import SqueezeIO

/// Checks an answer's blocks: blocking, on a pool thread of the coordinator's.
///
/// - Bytes from a remote worker: the claimed CRC must be that of the source bytes the
///   coordinator read and sent, then the block must inflate (with the dictionary it was sent)
///   to the planned length and that CRC.
/// - A block a shared-storage worker wrote: the worker read the source itself, so the source
///   range is read again here (normally from the page cache the worker just filled) and the
///   claim must be its CRC; the piece is read back and must inflate to it. Checking the bytes
///   on disk, not a report about them, is what makes the check hold whatever the worker says.
enum ResultChecker {
    /// The first defect among the blocks, naming the block (nil when every block passes),
    /// and for each block checked (not skipped), the CRC-32 of the compressed bytes read back
    /// (nil for bytes that came in a message: they are never stitched by a worker).
    static func check(_ blocks: [CheckedBlock]) -> (defect: BlockDefect?, storedCRCs: [UInt32?]) {
        let verifier: BlockVerifier
        do {
            verifier = try BlockVerifier()
        } catch {
            return (BlockDefect("cannot check: \(error)"), [])
        }
        var storedCRCs: [UInt32?] = []
        for (position, block) in blocks.enumerated() {
            do {
                if case .skipped = block { continue }
                storedCRCs.append(try check(block, with: verifier))
            } catch {
                return (BlockDefect("block \(position): \(error.reason)"), storedCRCs)
            }
        }
        return (nil, storedCRCs)
    }

    private static func check(_ block: CheckedBlock, with verifier: BlockVerifier) throws(BlockDefect) -> UInt32? {
        switch block {
        case .skipped:
            return nil
        case .received(let result, let source, let isLast):
            let claim = BlockClaim(crc: result.crc, rawLength: result.rawLength, isLast: isLast)
            if let source, source.crc != claim.crc {
                throw BlockDefect("claimed CRC-32 differs from that of the bytes sent")
            }
            let dictionary = source?.dictionary ?? []
            do {
                try result.bytes.withUnsafeBytes { deflate in
                    try dictionary.withUnsafeBytes { try verifier.verify(deflate, dictionary: $0, claim: claim) }
                }
            } catch {
                throw error as? BlockDefect ?? BlockDefect("\(error)")
            }
            return nil
        case .written(let written):
            return try check(written, with: verifier)
        }
    }

    /// Returns the CRC-32 of the compressed bytes read back.
    private static func check(_ block: WrittenBlock, with verifier: BlockVerifier) throws(BlockDefect) -> UInt32 {
        let source: [UInt8]
        let stored: [UInt8]
        do {
            source = try block.segments.map { try SourceSegment.read($0) } ?? SourceReader.read(block.source, expected: block.stamp, range: block.sourceRange)
            guard block.length <= UInt64(BlockVerifier.maxCompressedLength + 4096) else {
                throw BlockDefect("reported length \(block.length) out of range")
            }
            stored = try PieceReader.read(block.path, offset: block.offset, count: Int(block.length))
        } catch let defect as BlockDefect {
            throw defect
        } catch {
            throw BlockDefect("cannot read it back: \((error as? FileSystemError)?.reason ?? "\(error)")")
        }
        guard block.dictionaryLength <= source.count else { throw BlockDefect("dictionary beyond the source read") }
        let crc = source.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[block.dictionaryLength...])) }
        guard crc == block.claim.crc, source.count - block.dictionaryLength == block.claim.rawLength else {
            throw BlockDefect("claimed CRC-32 differs from that of the source bytes")
        }
        do {
            try stored.withUnsafeBytes { bytes in
                if let header = block.header {
                    try verifier.verifyMember(bytes, header: header, claim: block.claim)
                } else {
                    try source.withUnsafeBytes { all in
                        try verifier.verify(bytes, dictionary: UnsafeRawBufferPointer(rebasing: all[..<block.dictionaryLength]), claim: block.claim)
                    }
                }
            }
        } catch {
            throw error as? BlockDefect ?? BlockDefect("\(error)")
        }
        return CRC32.checksum(stored)
    }
}
