import CZlib

/// Checks that a compressed block, as a worker sent it, fits in its file's gzip member: it
/// inflates (raw deflate, primed with its dictionary) to exactly its planned length and
/// claimed CRC-32, and ends where the next block can begin.
///
/// The decoder is zlib's inflate, the reference the gzip tools share: a block passes only if
/// zlib takes it, so an encoding other decoders tolerate but `gzip -t` refuses (an incomplete
/// Huffman code, say) is refused here too. It inflates with `Z_BLOCK`, which stops between
/// deflate blocks, so after the last input byte it tells where the stream stands:
/// - a block that is not its file's last must be consumed exactly up to a block boundary
///   with no bit left over and no final block seen, so the next block, read from the same
///   byte in the member, decodes as it did on its own;
/// - a file's last block must end the stream (its final block) on its last byte.
///
/// A block of stored deflate blocks alone (level 0) that passes all this is read directly
/// (`StoredBlockRun`) instead of copied out by zlib; whatever that reading does not take goes
/// to zlib.
///
/// Not thread-safe: one per thread. The output buffer is reused, grown to the largest block.
public final class BlockVerifier {
    private let owner: ZlibStream
    private var stream: UnsafeMutablePointer<z_stream> { owner.pointer }
    private var output: [UInt8] = []
    private let readsStoredBlocks: Bool

    /// Largest dictionary a block may have.
    public static let maxDictionary = 32 << 10
    /// Largest uncompressed block (the protocol's `maxBlockSize`).
    public static let maxRawLength = 64 << 20
    /// Largest compressed block: deflate's worst case over the largest block, with room.
    public static let maxCompressedLength = maxRawLength + maxRawLength / 8 + 4096

    /// `data_type` after `inflate`: the stream stopped between two deflate blocks.
    private static let betweenBlocks: Int32 = 128
    /// `data_type` after `inflate`: the block being read has BFINAL set.
    private static let inFinalBlock: Int32 = 64
    /// `data_type` after `inflate`: bits of the last byte read and not yet used.
    private static let unusedBits: Int32 = 63

    /// A verifier with its own raw inflate stream, its 32 KiB window already allocated so no
    /// check can fail for want of memory and be blamed on the block.
    /// - Throws: `ZlibError` when zlib cannot set the stream up.
    public convenience init() throws {
        try self.init(readsStoredBlocks: true)
    }

    /// A verifier that, with `readsStoredBlocks` false, gives every block to zlib: what tests
    /// compare the stored-block reading against.
    init(readsStoredBlocks: Bool) throws {
        self.readsStoredBlocks = readsStoredBlocks
        owner = try ZlibStream(inflateWindowBits: -15)
        // Setting a dictionary allocates the window, which inflateReset keeps.
        var byte: UInt8 = 0
        let status = inflateSetDictionary(owner.pointer, &byte, 1)
        guard status == Z_OK else { throw ZlibError(operation: "inflateSetDictionary", code: status, stream: owner.pointer) }
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
        guard (0...Self.maxDictionary).contains(dictionary.count) else {
            throw BlockDefect("dictionary of \(dictionary.count) bytes, at most \(Self.maxDictionary)")
        }
        guard (0...Self.maxRawLength).contains(rawLength) else {
            throw BlockDefect("planned length \(rawLength) out of range")
        }
        guard (0...Self.maxCompressedLength).contains(deflate.count) else {
            throw BlockDefect("compressed length \(deflate.count) out of range")
        }
        guard let input = deflate.baseAddress, deflate.count > 0 else {
            // No bytes at all: the stored engine's non-final block for no data, nothing else.
            guard !isLast else { throw BlockDefect("no final deflate block where the file ends") }
            guard rawLength == 0 else { throw BlockDefect("decodes to 0 bytes, \(rawLength) planned") }
            return 0
        }
        if readsStoredBlocks, let crc = StoredBlockRun.checksum(deflate, rawLength: rawLength, isLast: isLast) { return crc }
        // One spare byte, so output beyond the plan shows as a longer result, not a stop.
        if output.count < rawLength + 1 { output = [UInt8](repeating: 0, count: rawLength + 1) }
        try start(with: dictionary)
        defer {
            // The pointers refer to memory that is only valid during this call.
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        // Both lengths fit in 32 bits: checked against the maxima above.
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(deflate.count)
        let status = output.withUnsafeMutableBytes { out -> Int32 in
            stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(rawLength + 1)
            var status: Int32
            repeat {
                status = inflate(stream, Z_BLOCK)
            } while status == Z_OK && stream.pointee.avail_out > 0 && (stream.pointee.avail_in > 0 || finalBlockDone)
            return status
        }
        let produced = rawLength + 1 - Int(stream.pointee.avail_out)
        let left = Int(stream.pointee.avail_in)
        let position = stream.pointee.data_type
        switch status {
        case Z_OK, Z_STREAM_END, Z_BUF_ERROR: break
        default:
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw BlockDefect("not valid deflate data (\(isLast ? "last block" : "block")): \(reason)")
        }
        guard produced <= rawLength else {
            throw BlockDefect("decodes to more than the \(rawLength) bytes planned")
        }
        if status == Z_STREAM_END {
            guard isLast else { throw BlockDefect("a final deflate block where the file goes on") }
            guard left == 0 else { throw BlockDefect("\(left) bytes after the final deflate block") }
        } else {
            guard left == 0 else { throw BlockDefect("not valid deflate data (\(isLast ? "last block" : "block"))") }
            guard !isLast else { throw BlockDefect("ends without its final deflate block") }
            guard position & Self.betweenBlocks != 0, position & Self.inFinalBlock == 0, position & Self.unusedBits == 0 else {
                throw BlockDefect("does not end byte-aligned and non-final")
            }
        }
        guard produced == rawLength else {
            throw BlockDefect("decodes to \(produced) bytes, \(rawLength) planned")
        }
        return output.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<rawLength])) }
    }

    /// A whole member as a shared-storage worker writes a file: `header` (an offset table's
    /// lengths aside, as `decodeMember` takes them), deflate data that decodes to the claim's
    /// length and CRC, then the trailer of both.
    /// - Throws: `BlockDefect` saying what is wrong.
    public func verifyMember(_ member: UnsafeRawBufferPointer, header: [UInt8], claim: BlockClaim) throws(BlockDefect) {
        let trailer = GzipTrailer(crc: claim.crc, inputLength: UInt64(claim.rawLength)).encoded()
        guard member.count > header.count + trailer.count else { throw BlockDefect("member of \(member.count) bytes is too short") }
        guard member.suffix(trailer.count).elementsEqual(trailer) else { throw BlockDefect("gzip trailer does not match the claim") }
        let crc = try decodeMember(member, header: header, rawLength: claim.rawLength)
        guard crc == claim.crc else {
            throw BlockDefect("CRC-32 \(Self.hex(crc)) of the decoded bytes, \(Self.hex(claim.crc)) claimed")
        }
    }

    /// A whole member as `verifyMember` checks it, without a claimed CRC: `header`, deflate
    /// data that decodes to `rawLength` bytes, and a trailer that matches what it decodes to.
    /// When `header` carries an offset table (its lengths as placeholders: only the writer
    /// knows them), the member's own lengths stand in for them, everything else in the header
    /// must be equal, and every span must decode on its own from where the table says it starts,
    /// so a decoder that trusts the table reads what one that ignores it does.
    /// - Returns: the CRC-32 of the decoded bytes.
    /// - Throws: `BlockDefect` saying what is wrong.
    public func decodeMember(_ member: UnsafeRawBufferPointer, header: [UInt8], rawLength: Int) throws(BlockDefect) -> UInt32 {
        let trailerLength = GzipTrailer.size
        guard member.count > header.count + trailerLength else { throw BlockDefect("member of \(member.count) bytes is too short") }
        let spans = try spanRanges(of: member, header: header, rawLength: rawLength)
        var checksum = MemberChecksum()
        for (index, span) in spans.enumerated() {
            let body = UnsafeRawBufferPointer(rebasing: member[span.compressed])
            let crc = try decode(body, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), rawLength: span.rawLength, isLast: index == spans.count - 1)
            checksum.append(crc: crc, length: span.rawLength)
        }
        let trailer = GzipTrailer(crc: checksum.crc, inputLength: UInt64(rawLength)).encoded()
        guard member.suffix(trailerLength).elementsEqual(trailer) else { throw BlockDefect("gzip trailer does not match the decoded bytes") }
        return checksum.crc
    }

    /// The deflate bytes of each span of `member` and what each decodes to: one span after a
    /// header equal to `header`, or the spans of the member's offset table when `header` has one.
    private func spanRanges(of member: UnsafeRawBufferPointer, header: [UInt8], rawLength: Int) throws(BlockDefect) -> [(compressed: Range<Int>, rawLength: Int)] {
        let bodyEnd = member.count - GzipTrailer.size
        guard let lengths = GzipOffsetTable.lengthsRange(in: header) else {
            guard member.prefix(header.count).elementsEqual(header) else { throw BlockDefect("gzip header differs from the coordinator's") }
            return [(header.count..<bodyEnd, rawLength)]
        }
        let written = Array(member.prefix(header.count))
        guard written[..<lengths.lowerBound].elementsEqual(header[..<lengths.lowerBound]),
              written[lengths.upperBound...].elementsEqual(header[lengths.upperBound...]) else {
            throw BlockDefect("gzip header differs from the coordinator's")
        }
        guard case .found(let points) = RestartPoints.read(header: written, dataStart: UInt64(header.count), fileSize: UInt64(member.count)) else {
            throw BlockDefect("the member's offset table cannot be right")
        }
        // The placeholder fixed the span size and count; the written table kept both.
        let spanBytes = Int(points.spanBytes)
        guard points.offsets.count == lengths.count / GzipOffsetTable.entryBytes + 1,
              spanBytes > 0, (points.offsets.count - 1) * spanBytes < rawLength else {
            throw BlockDefect("the member's offset table does not fit its \(rawLength) bytes")
        }
        let starts = points.offsets.map { Int($0) } + [bodyEnd]
        return (0..<points.offsets.count).map { span in
            (starts[span]..<starts[span + 1], min(spanBytes, rawLength - span * spanBytes))
        }
    }

    /// `Z_BLOCK` stops after the final block's end-of-block code too; one more call ends the
    /// stream (Z_STREAM_END), even with no input left.
    private var finalBlockDone: Bool {
        let position = stream.pointee.data_type
        return position & Self.betweenBlocks != 0 && position & Self.inFinalBlock != 0
    }

    /// Resets the stream for a new block and primes it with the block's dictionary.
    private func start(with dictionary: UnsafeRawBufferPointer) throws(BlockDefect) {
        var status = inflateReset(stream)
        if status == Z_OK, let base = dictionary.baseAddress, !dictionary.isEmpty {
            status = inflateSetDictionary(stream, base.assumingMemoryBound(to: Bytef.self), uInt(dictionary.count))
        }
        guard status == Z_OK else {
            throw BlockDefect("cannot check: \(ZlibError(operation: "inflateSetDictionary", code: status, stream: stream))")
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
