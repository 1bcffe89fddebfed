import CZlib

/// Checks a gzip file the way `gzip -t` does, fed in pieces so a file of any size takes a fixed
/// amount of memory: the member must inflate, its CRC-32 and ISIZE must match, and nothing may
/// follow it (a squeeze output is one member). Decompressed bytes are counted and dropped.
/// One thread at a time.
public final class GzipChecker {
    /// windowBits 15 + 16: a 32 KiB window, gzip wrapper only.
    private static let gzipWindowBits: Int32 = 15 + 16

    private let owner: ZlibStream
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)
    private var ended = false
    private var fed: UInt64 = 0
    /// Uncompressed bytes the member held so far.
    public private(set) var uncompressedBytes: UInt64 = 0

    /// A checker for one file.
    public init() throws {
        owner = try ZlibStream(inflateWindowBits: Self.gzipWindowBits)
    }

    /// Takes the next bytes of the file. Throws `ZlibError` on corrupt data (a CRC or length that
    /// does not match among it) or on bytes after the member.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard !ended else { throw Self.trailing }
        let stream = owner.pointer
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        fed += UInt64(bytes.count)
        var offset = 0
        while offset < bytes.count {
            // avail_in is 32-bit: hand the input over in pieces.
            let piece = min(bytes.count - offset, Int(UInt32.max))
            stream.pointee.next_in = UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(piece)
            offset += piece
            while stream.pointee.avail_in > 0 {
                let status = scratch.withUnsafeMutableBytes { out -> Int32 in
                    stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = uInt(out.count)
                    return inflate(stream, Z_NO_FLUSH)
                }
                uncompressedBytes += UInt64(scratch.count - Int(stream.pointee.avail_out))
                switch status {
                case Z_OK, Z_BUF_ERROR:
                    continue
                case Z_STREAM_END:
                    ended = true
                    let left = Int(stream.pointee.avail_in) + (bytes.count - offset)
                    guard left == 0 else { throw Self.trailing }
                    return
                case Z_NEED_DICT:
                    throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "the member needs a preset dictionary")
                default:
                    throw ZlibError(operation: "inflate", code: status, stream: stream)
                }
            }
        }
    }

    /// Ends the input: throws when the file was empty or its member is incomplete (truncated).
    public func finish() throws {
        guard fed > 0 else { throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "empty file") }
        guard ended else { throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "truncated: the member does not end") }
    }

    private static let trailing = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "data after the gzip member (another member, or garbage)")
}
