import CISAL
import CZlib

/// Decompresses gzip data fed in pieces, so a file or stream of any size takes a fixed amount
/// of memory: each member must inflate and its CRC-32 and ISIZE must match. One thread at a time.
///
/// The inflate is ISA-L's (`isal_inflate`, about twice zlib's speed on this project's outputs);
/// the gzip header is read by ISA-L too, and the trailer is checked here, so a wrong CRC and a
/// wrong length are told apart in zlib's words. ISA-L takes some deflate data that zlib and
/// gzip refuse (a Huffman code that does not fill its code space): harmless where bytes are
/// wanted, since the trailer still vouches for them, but not where the question is whether
/// every gzip tool reads the file. A `strict` decoder (`-t`, `squeeze test`, rechecks of
/// outputs) inflates with zlib instead, the reference the gzip tools share.
///
/// With `multipleMembers` (what `gzip -d` reads: `cat a.gz b.gz`), member follows member and
/// zero bytes after the last one are padding, as gzip allows; anything else after a member is
/// trailing garbage and an error. Without it (a squeeze output, `squeeze test`), nothing at all
/// may follow the one member.
public final class GzipStreamDecoder {
    private enum Position {
        case header
        case body
        case trailer
        case afterMember
        case padding
    }

    private let inflater: UnsafeMutablePointer<squeeze_isal_inflater>
    /// zlib's stream, for a strict decoder: it reads header, data and trailer itself.
    private let zlib: ZlibStream?
    private let multipleMembers: Bool
    private var scratch: UnsafeMutableRawBufferPointer
    private var position = Position.header
    private var fed: UInt64 = 0
    /// The trailer's bytes read so far (it may arrive split over two pieces).
    private var trailer: [UInt8] = []
    /// Bytes of the current member's header ISA-L has taken so far.
    private var headerTaken = 0
    private static let magic: [UInt8] = [0x1f, 0x8b]
    /// The header's FLG byte, and its bits RFC 1952 reserves.
    private static let flagsOffset = 3
    private static let reservedFlags: UInt8 = 0xe0
    /// Bytes the current member has produced: its ISIZE is their count modulo 2^32.
    private var memberBytes: UInt64 = 0
    /// Uncompressed bytes produced so far.
    public private(set) var uncompressedBytes: UInt64 = 0
    /// Members ended so far.
    public private(set) var members = 0

    /// A decoder for one file or stream; `chunkSize` is the most it hands the sink at once.
    /// `strict`: accept only what zlib accepts (what `gzip -t` checks), at zlib's speed.
    /// `membersBefore`: the input starts right after that many members read elsewhere (what
    /// follows a member: more members or zero padding).
    public init(multipleMembers: Bool, strict: Bool = false, membersBefore: Int = 0, chunkSize: Int = 256 * 1024) throws {
        guard let inflater = squeeze_isal_inflater_create() else {
            throw ZlibError(operation: "isal_inflate_init", code: Z_MEM_ERROR, message: "out of memory")
        }
        self.inflater = inflater
        // windowBits 15 + 16: a 32 KiB window, gzip wrapper only.
        zlib = strict ? try ZlibStream(inflateWindowBits: 15 + 16) : nil
        self.multipleMembers = multipleMembers
        scratch = .allocate(byteCount: min(max(chunkSize, 4096), Int(UInt32.max)), alignment: 64)
        trailer.reserveCapacity(GzipTrailer.size)
        squeeze_isal_inflater_begin(inflater)
        if membersBefore > 0 {
            members = membersBefore
            position = .afterMember
        }
    }

    deinit {
        squeeze_isal_inflater_destroy(inflater)
        scratch.deallocate()
    }

    /// Takes the next compressed bytes and hands what they decompress to, in order, to `sink`.
    /// Throws `ZlibError` on corrupt data (a CRC or length that does not match among it),
    /// trailing garbage, or an error `sink` throws.
    public func feed(_ bytes: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        fed += UInt64(bytes.count)
        var offset = 0
        while offset < bytes.count {
            // ISA-L counts in 32 bits: hand the input over in pieces.
            let piece = min(bytes.count - offset, Int(UInt32.max))
            let input = (base + offset).assumingMemoryBound(to: UInt8.self)
            switch position {
            case .header where zlib != nil, .body where zlib != nil:
                offset += try inflateStrictly(input, count: piece, sink)
            case .header:
                offset += try readHeader(input, count: piece)
            case .body:
                offset += try inflateAvailable(input, count: piece, sink)
            case .trailer:
                let taken = min(GzipTrailer.size - trailer.count, piece)
                trailer.append(contentsOf: UnsafeBufferPointer(start: input, count: taken))
                offset += taken
                if trailer.count == GzipTrailer.size { try endMember() }
            case .afterMember:
                guard multipleMembers else { throw Self.afterOnlyMember }
                if input.pointee == 0 {
                    position = .padding
                    continue
                }
                if let zlib {
                    let status = inflateReset(zlib.pointer)
                    guard status == Z_OK else { throw ZlibError(operation: "inflateReset", code: status, stream: zlib.pointer) }
                }
                squeeze_isal_inflater_begin(inflater)
                memberBytes = 0
                headerTaken = 0
                position = .header
            case .padding:
                let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                guard rest.allSatisfy({ $0 == 0 }) else { throw Self.trailingGarbage }
                offset = bytes.count
            }
        }
    }

    /// Ends the input: throws when there was none, or a member is incomplete (truncated).
    public func finish() throws {
        guard fed > 0 || members > 0 else { throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "empty input: not in gzip format") }
        guard position == .afterMember || position == .padding else {
            throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "unexpected end of input: the gzip member is truncated")
        }
    }

    /// Reads (part of) a member's header; returns the bytes it took.
    private func readHeader(_ input: UnsafePointer<UInt8>, count: Int) throws -> Int {
        // ISA-L waits for a whole header before it looks at the magic, so what follows a member
        // ("junk") would be taken for a truncated one; and it lets reserved flags pass, which
        // zlib and gzip refuse.
        for index in headerTaken..<max(headerTaken, min(Self.flagsOffset + 1, headerTaken + count)) {
            let byte = input[index - headerTaken]
            if index < Self.magic.count, byte != Self.magic[index] { throw members > 0 ? Self.trailingGarbage : Self.notGzip }
            if index == Self.flagsOffset, byte & Self.reservedFlags != 0 {
                throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "unknown header flags set")
            }
        }
        var left: UInt32 = 0
        let status = squeeze_isal_inflater_header(inflater, input, UInt32(count), &left)
        let taken = count - Int(left)
        headerTaken += taken
        switch status {
        case ISAL_DECOMP_OK:
            position = .body
        case ISAL_END_INPUT where left == 0:
            break  // the header goes on in the next piece
        case ISAL_INVALID_WRAPPER:
            throw members > 0 ? Self.trailingGarbage : Self.notGzip
        case ISAL_UNSUPPORTED_METHOD:
            throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "unknown compression method")
        case ISAL_INCORRECT_CHECKSUM:
            throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "header crc mismatch")
        default:
            throw ZlibError(operation: "isal_read_gzip_header", code: Z_DATA_ERROR, message: "invalid gzip header (ISA-L error \(status))")
        }
        guard taken > 0 || position == .body else {
            throw ZlibError(operation: "isal_read_gzip_header", code: Z_DATA_ERROR, message: "invalid gzip header")
        }
        return taken
    }

    /// Inflates until the input is used up or the member's deflate data ends; returns the
    /// bytes it took (the trailer and what follows are left).
    private func inflateAvailable(_ input: UnsafePointer<UInt8>, count: Int, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        var consumed = 0
        while true {
            var inputLeft: UInt32 = 0
            var outputLeft: UInt32 = 0
            var done: Int32 = 0
            let room = UInt32(scratch.count)
            let status = squeeze_isal_inflater_step(
                inflater, input + consumed, UInt32(count - consumed),
                scratch.baseAddress?.assumingMemoryBound(to: UInt8.self), room, &inputLeft, &outputLeft, &done)
            let produced = Int(room - outputLeft)
            consumed = count - Int(inputLeft)
            if produced > 0 {
                uncompressedBytes += UInt64(produced)
                memberBytes += UInt64(produced)
                try sink(UnsafeRawBufferPointer(rebasing: scratch[0..<produced]))
            }
            guard status >= ISAL_DECOMP_OK else { throw RawInflater.dataError(status) }
            if done != 0 {
                try startTrailer()
                return consumed
            }
            // Returned with room to spare: the input is used up and everything it gives is out.
            if outputLeft > 0 { return consumed }
        }
    }

    /// The deflate data has ended: the trailer starts with the bytes ISA-L read ahead.
    private func startTrailer() throws {
        var buffered: (UInt64, UInt64) = (0, 0)
        let count = withUnsafeMutableBytes(of: &buffered) { bytes in
            squeeze_isal_inflater_take_buffered(inflater, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        let taken = min(Int(count), GzipTrailer.size)
        trailer.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: buffered) { trailer.append(contentsOf: $0.prefix(taken)) }
        position = .trailer
        if trailer.count == GzipTrailer.size { try endMember() }
    }

    /// Inflates with zlib until the input is used up or the member (its trailer checked) ends;
    /// returns the bytes it took.
    private func inflateStrictly(_ input: UnsafePointer<UInt8>, count: Int, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        guard let stream = zlib?.pointer else { throw ZlibError(operation: "inflate", code: Z_STREAM_ERROR, message: "no zlib stream") }
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input)
        stream.pointee.avail_in = uInt(count)
        while true {
            stream.pointee.next_out = scratch.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let status = inflate(stream, Z_NO_FLUSH)
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                uncompressedBytes += UInt64(produced)
                try sink(UnsafeRawBufferPointer(rebasing: scratch[0..<produced]))
            }
            switch status {
            case Z_OK:
                position = .body
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return count }
            case Z_BUF_ERROR:
                return count - Int(stream.pointee.avail_in)  // needs more input
            case Z_STREAM_END:
                members += 1
                position = .afterMember
                return count - Int(stream.pointee.avail_in)
            case Z_NEED_DICT:
                throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "the member needs a preset dictionary")
            case Z_DATA_ERROR where stream.pointee.total_in < 10:
                // The first bytes of a member are not a gzip header.
                throw members > 0 ? Self.trailingGarbage : Self.notGzip
            default:
                throw ZlibError(operation: "inflate", code: status, stream: stream)
            }
        }
    }

    /// Checks the trailer against what the member produced.
    private func endMember() throws {
        let crc = trailer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self) }
        let length = trailer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }
        guard UInt32(littleEndian: crc) == squeeze_isal_inflater_crc(inflater) else {
            throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "incorrect data check")
        }
        guard UInt32(littleEndian: length) == UInt32(truncatingIfNeeded: memberBytes) else {
            throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "incorrect length check")
        }
        members += 1
        position = .afterMember
    }

    private static let afterOnlyMember = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "data after the gzip member (another member, or garbage)")
    private static let notGzip = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "not in gzip format")
    private static let trailingGarbage = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "trailing garbage after the last gzip member")
}
