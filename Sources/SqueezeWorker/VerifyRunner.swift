import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Answers a `verify` item: decodes each block and says what it decoded to. Blocking: run on
/// a pool thread of the worker's.
///
/// It is not told the compressing worker's CRC: it reports the CRC of what the block decodes
/// to (and, for a block on shared storage, of the source data it read itself) and the
/// coordinator compares, so a verifier cannot say "good" without decoding.
enum VerifyRunner {
    /// The report for `request`: one finding per block, in order.
    static func run(_ request: VerifyRequest) -> VerifyReport {
        let verifier: BlockVerifier
        do {
            verifier = try BlockVerifier()
        } catch {
            let finding = VerifyFinding(outcome: .unreadable, storedCRC: 0, reason: "cannot check: \(error)")
            return VerifyReport(checkID: request.checkID, findings: request.blocks.map { _ in finding })
        }
        return VerifyReport(checkID: request.checkID, findings: request.blocks.map { block in
            switch block {
            case .inline(let inline): decode(inline, with: verifier)
            case .reference(let reference): decode(reference, with: verifier)
            case .range(let range): checksum(range)
            }
        })
    }

    private static func decode(_ block: InlineVerifyBlock, with verifier: BlockVerifier) -> VerifyFinding {
        do throws(BlockDefect) {
            let crc = try block.deflate.withUnsafeBytes { (deflate) throws(BlockDefect) -> UInt32 in
                try block.dictionary.withUnsafeBytes { (dictionary) throws(BlockDefect) -> UInt32 in
                    try verifier.decode(deflate, dictionary: dictionary, rawLength: block.rawLength, isLast: block.isLast)
                }
            }
            return VerifyFinding(outcome: .decoded, crc: crc, storedCRC: block.deflate.withUnsafeBytes { CRC32.checksum($0) })
        } catch {
            return VerifyFinding(outcome: .defect, storedCRC: block.deflate.withUnsafeBytes { CRC32.checksum($0) }, reason: error.reason)
        }
    }

    /// A stitched segment: only the CRC-32 of its bytes, read in chunks.
    private static func checksum(_ range: VerifyRange) -> VerifyFinding {
        var crc: UInt32 = 0
        do {
            try PieceReader.forEachChunk(BytePath(bytes: range.path), offset: range.offset, count: range.length) {
                crc = CRC32.checksum($0, seed: crc)
            }
        } catch {
            return VerifyFinding(outcome: .unreadable, reason: (error as? FileSystemError)?.reason ?? "\(error)")
        }
        return VerifyFinding(outcome: .decoded, crc: crc, storedCRC: crc)
    }

    private static func decode(_ block: VerifyReference, with verifier: BlockVerifier) -> VerifyFinding {
        let source: [UInt8]
        let stored: [UInt8]
        do {
            // The decoder bounded both ranges, so these sums cannot overflow.
            let stamp = FileStamp(
                size: block.size, modifiedSeconds: block.modifiedSeconds, modifiedNanoseconds: block.modifiedNanoseconds,
                device: 0, inode: block.inode, permissions: 0)
            let range = block.sourceOffset..<block.sourceOffset + UInt64(block.dictionaryLength + block.rawLength)
            source = try block.segments.map { try SourceSegment.read($0.map(\.source), matching: block.view.match) }
                ?? SourceReader.read(BytePath(bytes: block.sourcePath), expected: stamp, range: range, matching: block.view.match)
            stored = try PieceReader.read(BytePath(bytes: block.compressedPath), offset: block.compressedOffset, count: Int(block.compressedLength))
        } catch {
            return VerifyFinding(outcome: .unreadable, reason: (error as? FileSystemError)?.reason ?? "\(error)")
        }
        let sourceCRC = source.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[block.dictionaryLength...])) }
        let storedCRC = CRC32.checksum(stored)
        do {
            let crc = try stored.withUnsafeBytes { bytes -> UInt32 in
                if let header = block.header {
                    return try verifier.decodeMember(bytes, header: header, rawLength: block.rawLength)
                }
                return try source.withUnsafeBytes { all -> UInt32 in
                    try verifier.decode(bytes, dictionary: UnsafeRawBufferPointer(rebasing: all[..<block.dictionaryLength]),
                                        rawLength: block.rawLength, isLast: block.isLast)
                }
            }
            return VerifyFinding(outcome: .decoded, crc: crc, sourceCRC: sourceCRC, storedCRC: storedCRC)
        } catch {
            return VerifyFinding(outcome: .defect, sourceCRC: sourceCRC, storedCRC: storedCRC, reason: (error as? BlockDefect)?.reason ?? "\(error)")
        }
    }
}
