import CLibDeflate
import CSqueezeDeflate

/// Checks that a compressed block, as a worker sent it, fits in its file's gzip member: it
/// inflates (raw deflate, primed with its dictionary) to exactly its planned length and
/// claimed CRC-32, and ends where the next block can begin.
///
/// libdeflate takes no preset dictionary, but every block of a member starts on a byte
/// boundary, so the verifier decodes one raw stream made of a non-final stored block holding
/// the D dictionary bytes, the block's bytes, and, for a block that is not its file's last,
/// an empty final stored block (`01 00 00 FF FF`). The block passes only if the whole stream
/// is consumed (a block that sets BFINAL early stops short), the output is exactly D + L
/// bytes, the CRC-32 of its last L bytes is the claim, and, for a non-final block, the final
/// block the stream ends with is the one appended, starting exactly at the block's last byte
/// boundary (found with `squeeze_deflate_find_end`): then the next block, read from the same
/// bit position in the member, decodes as it did on its own.
///
/// Not thread-safe: one per thread. Buffers are reused, grown to the largest block seen.
public final class BlockVerifier {
    private let decompressor: OpaquePointer
    private var input: [UInt8] = []
    private var output: [UInt8] = []

    /// Largest dictionary a block may have.
    public static let maxDictionary = 32 << 10
    /// Largest uncompressed block (the protocol's `maxBlockSize`).
    public static let maxRawLength = 64 << 20
    /// Largest compressed block: deflate's worst case over the largest block, with room.
    public static let maxCompressedLength = maxRawLength + maxRawLength / 8 + 4096

    /// The empty final stored block appended after a non-final block.
    private static let finalEmptyStored: [UInt8] = [0x01, 0x00, 0x00, 0xFF, 0xFF]

    /// A verifier with its own libdeflate decompressor.
    /// - Throws: `EngineError` when libdeflate cannot allocate one.
    public init() throws {
        guard let decompressor = libdeflate_alloc_decompressor() else {
            throw EngineError(engine: .libdeflate, operation: "libdeflate_alloc_decompressor", message: "out of memory")
        }
        self.decompressor = decompressor
    }

    deinit {
        libdeflate_free_decompressor(decompressor)
    }

    /// Checks one block's raw deflate bytes against its claim.
    ///
    /// - Parameters:
    ///   - deflate: the block's compressed bytes as received.
    ///   - dictionary: the bytes before the block that primed it (at most 32 KiB; empty for an
    ///     engine without a dictionary or a file's first block).
    ///   - claim: planned length, claimed CRC-32, last flag.
    /// - Throws: `BlockDefect` saying what is wrong.
    public func verify(_ deflate: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, claim: BlockClaim) throws(BlockDefect) {
        let crc = try decode(deflate, dictionary: dictionary, rawLength: claim.rawLength, isLast: claim.isLast)
        guard crc == claim.crc else {
            throw BlockDefect("CRC-32 \(Self.hex(crc)) of the decoded bytes, \(Self.hex(claim.crc)) claimed")
        }
    }

    /// Decodes one block as `verify` does, without a claimed CRC: it must inflate to exactly
    /// `rawLength` bytes and end where the next block can begin. What a verifier that was not
    /// told the claim reports.
    /// - Returns: the CRC-32 of the decoded bytes.
    /// - Throws: `BlockDefect` saying what is wrong.
    public func decode(_ deflate: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, rawLength: Int, isLast: Bool) throws(BlockDefect) -> UInt32 {
        let claim = BlockClaim(crc: 0, rawLength: rawLength, isLast: isLast)
        guard (0...Self.maxDictionary).contains(dictionary.count) else {
            throw BlockDefect("dictionary of \(dictionary.count) bytes, at most \(Self.maxDictionary)")
        }
        guard (0...Self.maxRawLength).contains(claim.rawLength) else {
            throw BlockDefect("planned length \(claim.rawLength) out of range")
        }
        // An empty non-final block is valid: the stored engine's output for no bytes.
        guard (0...Self.maxCompressedLength).contains(deflate.count) else {
            throw BlockDefect("compressed length \(deflate.count) out of range")
        }
        let prefix = dictionary.isEmpty ? 0 : StoredBlocks.headerLength + dictionary.count
        let blockEnd = prefix + deflate.count
        let total = blockEnd + (claim.isLast ? 0 : Self.finalEmptyStored.count)
        if input.count < total { input = [UInt8](repeating: 0, count: total) }
        let expectedOut = dictionary.count + claim.rawLength
        // One spare byte, so output beyond the plan shows as a longer result, not a failure.
        if output.count < expectedOut + 1 { output = [UInt8](repeating: 0, count: expectedOut + 1) }

        input.withUnsafeMutableBytes { buffer in
            if !dictionary.isEmpty {
                let header = StoredBlocks.header(length: dictionary.count, isFinal: false)
                buffer.copyBytes(from: header)
                UnsafeMutableRawBufferPointer(rebasing: buffer[StoredBlocks.headerLength..<prefix]).copyMemory(from: dictionary)
            }
            UnsafeMutableRawBufferPointer(rebasing: buffer[prefix..<blockEnd]).copyMemory(from: deflate)
            if !claim.isLast {
                UnsafeMutableRawBufferPointer(rebasing: buffer[blockEnd..<total]).copyBytes(from: Self.finalEmptyStored)
            }
        }

        var consumed = 0
        var produced = 0
        let result = input.withUnsafeBytes { inBuffer in
            output.withUnsafeMutableBytes { outBuffer in
                libdeflate_deflate_decompress_ex(
                    decompressor, inBuffer.baseAddress, total, outBuffer.baseAddress, expectedOut + 1, &consumed, &produced)
            }
        }
        switch result {
        case LIBDEFLATE_SUCCESS: break
        case LIBDEFLATE_INSUFFICIENT_SPACE: throw BlockDefect("decodes to more than the \(claim.rawLength) bytes planned")
        case LIBDEFLATE_SHORT_OUTPUT: throw BlockDefect("decodes to fewer bytes than planned")
        default: throw BlockDefect("not valid deflate data (\(claim.isLast ? "last block" : "block"))")
        }
        guard produced == expectedOut else {
            throw BlockDefect("decodes to \(produced - min(produced, dictionary.count)) bytes, \(claim.rawLength) planned")
        }
        guard consumed == total else {
            throw BlockDefect(claim.isLast
                ? "\(total - consumed) bytes after the final deflate block"
                : "a final deflate block where the file goes on")
        }
        if !claim.isLast { try checkEndsOnBoundary(finalBlockAt: blockEnd, total: total) }
        return output.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[dictionary.count..<expectedOut])) }
    }

    /// A whole member as a shared-storage worker writes a one-block file: exactly `header`, the
    /// block's deflate bytes (a last block), then the trailer of the claim's CRC and length.
    /// - Throws: `BlockDefect` saying what is wrong.
    public func verifyMember(_ member: UnsafeRawBufferPointer, header: [UInt8], claim: BlockClaim) throws(BlockDefect) {
        let trailer = GzipTrailer(crc: claim.crc, inputLength: UInt64(claim.rawLength)).encoded()
        guard member.count > header.count + trailer.count else { throw BlockDefect("member of \(member.count) bytes is too short") }
        guard member.prefix(header.count).elementsEqual(header) else { throw BlockDefect("gzip header differs from the coordinator's") }
        guard member.suffix(trailer.count).elementsEqual(trailer) else { throw BlockDefect("gzip trailer does not match the claim") }
        let body = UnsafeRawBufferPointer(rebasing: member[header.count..<(member.count - trailer.count)])
        var last = claim
        last.isLast = true
        try verify(body, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), claim: last)
    }

    /// A whole member as `verifyMember` checks it, without a claimed CRC: `header`, one last
    /// deflate block of `rawLength` bytes, and a trailer that matches what it decodes to.
    /// - Returns: the CRC-32 of the decoded bytes.
    /// - Throws: `BlockDefect` saying what is wrong.
    public func decodeMember(_ member: UnsafeRawBufferPointer, header: [UInt8], rawLength: Int) throws(BlockDefect) -> UInt32 {
        let trailerLength = GzipTrailer.size
        guard member.count > header.count + trailerLength else { throw BlockDefect("member of \(member.count) bytes is too short") }
        guard member.prefix(header.count).elementsEqual(header) else { throw BlockDefect("gzip header differs from the coordinator's") }
        let body = UnsafeRawBufferPointer(rebasing: member[header.count..<(member.count - trailerLength)])
        let crc = try decode(body, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), rawLength: rawLength, isLast: true)
        let trailer = GzipTrailer(crc: crc, inputLength: UInt64(rawLength)).encoded()
        guard member.suffix(trailerLength).elementsEqual(trailer) else { throw BlockDefect("gzip trailer does not match the decoded bytes") }
        return crc
    }

    /// The first final block of the stream must be the appended one, at the block's end.
    private func checkEndsOnBoundary(finalBlockAt blockEnd: Int, total: Int) throws(BlockDefect) {
        var ends = squeeze_deflate_ends()
        let status = input.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return squeeze_deflate_find_end(base.assumingMemoryBound(to: UInt8.self), total, &ends)
        }
        guard status == 0, ends.final_header_bit == UInt64(blockEnd) * 8, ends.end_bit == UInt64(total) * 8 else {
            throw BlockDefect("does not end byte-aligned and non-final")
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
