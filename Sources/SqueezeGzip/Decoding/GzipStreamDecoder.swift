import CZlib

/// Decompresses gzip data fed in pieces, so a file or stream of any size takes a fixed amount
/// of memory: each member must inflate and its CRC-32 and ISIZE must match. One thread at a time.
///
/// With `multipleMembers` (what `gzip -d` reads: `cat a.gz b.gz`), member follows member and
/// zero bytes after the last one are padding, as gzip allows; anything else after a member is
/// trailing garbage and an error. Without it (a squeeze output, `squeeze test`), nothing at all
/// may follow the one member.
public final class GzipStreamDecoder {
    /// windowBits 15 + 16: a 32 KiB window, gzip wrapper only.
    private static let gzipWindowBits: Int32 = 15 + 16

    private enum Position {
        case inMember
        case afterMember
        case padding
    }

    private let owner: ZlibStream
    private let multipleMembers: Bool
    private var scratch: UnsafeMutableRawBufferPointer
    private var position = Position.inMember
    private var fed: UInt64 = 0
    /// Uncompressed bytes produced so far.
    public private(set) var uncompressedBytes: UInt64 = 0
    /// Members ended so far.
    public private(set) var members = 0

    /// A decoder for one file or stream; `chunkSize` is the most it hands the sink at once.
    public init(multipleMembers: Bool, chunkSize: Int = 256 * 1024) throws {
        owner = try ZlibStream(inflateWindowBits: Self.gzipWindowBits)
        self.multipleMembers = multipleMembers
        scratch = .allocate(byteCount: max(chunkSize, 4096), alignment: 64)
    }

    deinit {
        scratch.deallocate()
    }

    /// Takes the next compressed bytes and hands what they decompress to, in order, to `sink`.
    /// Throws `ZlibError` on corrupt data (a CRC or length that does not match among it),
    /// trailing garbage, or an error `sink` throws.
    public func feed(_ bytes: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let stream = owner.pointer
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        fed += UInt64(bytes.count)
        var offset = 0
        while offset < bytes.count {
            switch position {
            case .inMember:
                // avail_in is 32-bit: hand the input over in pieces.
                let piece = min(bytes.count - offset, Int(UInt32.max))
                stream.pointee.next_in = UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = uInt(piece)
                try inflateAvailable(sink)
                offset += piece - Int(stream.pointee.avail_in)
            case .afterMember:
                guard multipleMembers else { throw Self.afterOnlyMember }
                if base.load(fromByteOffset: offset, as: UInt8.self) == 0 {
                    position = .padding
                    continue
                }
                let status = inflateReset(stream)
                guard status == Z_OK else { throw ZlibError(operation: "inflateReset", code: status, stream: stream) }
                position = .inMember
            case .padding:
                let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                guard rest.allSatisfy({ $0 == 0 }) else { throw Self.trailingGarbage }
                offset = bytes.count
            }
        }
    }

    /// Ends the input: throws when there was none, or a member is incomplete (truncated).
    public func finish() throws {
        guard fed > 0 else { throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "empty input: not in gzip format") }
        guard position != .inMember else {
            throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "unexpected end of input: the gzip member is truncated")
        }
    }

    /// Inflates until the input set on the stream is used up or its member ends.
    private func inflateAvailable(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let stream = owner.pointer
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
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
            case Z_BUF_ERROR:
                return  // needs more input
            case Z_STREAM_END:
                members += 1
                position = .afterMember
                return
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

    private static let afterOnlyMember = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "data after the gzip member (another member, or garbage)")
    private static let notGzip = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "not in gzip format")
    private static let trailingGarbage = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "trailing garbage after the last gzip member")
}
