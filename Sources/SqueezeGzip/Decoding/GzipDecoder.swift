import CZlib

/// Decompresses gzip data with zlib — for tests and verification.
public enum GzipDecoder {
    /// windowBits 15 + 16: a 32 KiB window, gzip wrapper only.
    private static let gzipWindowBits: Int32 = 15 + 16
    private static let outputChunk = 256 * 1024

    /// Decompresses a gzip stream of one or more concatenated members.
    /// - Throws: `ZlibError` for empty, truncated or corrupt input (including CRC/ISIZE mismatches).
    public static func decompress(_ data: [UInt8]) throws -> [UInt8] {
        guard !data.isEmpty else {
            throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "empty input")
        }
        let owner = try ZlibStream(inflateWindowBits: gzipWindowBits)
        // `stream` is the owner's memory: keep the owner alive until the last use of it.
        defer { withExtendedLifetime(owner) {} }
        let stream = owner.pointer

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: outputChunk)
        try data.withUnsafeBytes { input in
            guard let base = input.baseAddress else { return }
            var offset = 0
            // avail_in is 32-bit: hand the input over in pieces.
            func refill() {
                let piece = min(input.count - offset, Int(UInt32.max))
                stream.pointee.next_in = UnsafeMutableRawPointer(mutating: base + offset)
                    .assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_in = uInt(piece)
                offset += piece
            }
            refill()
            while true {
                let status = chunk.withUnsafeMutableBytes { out -> Int32 in
                    stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = uInt(out.count)
                    return inflate(stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: chunk.prefix(chunk.count - Int(stream.pointee.avail_out)))
                if stream.pointee.avail_in == 0, offset < input.count { refill() }

                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    // A member ended; anything left must be the next member.
                    guard stream.pointee.avail_in > 0 else { return }
                    let resetStatus = inflateReset(stream)
                    guard resetStatus == Z_OK else {
                        throw ZlibError(operation: "inflateReset", code: resetStatus, stream: stream)
                    }
                case Z_BUF_ERROR where stream.pointee.avail_in > 0:
                    continue  // just refilled: progress is possible again
                case Z_BUF_ERROR:
                    throw ZlibError(operation: "inflate", code: status, message: "truncated gzip stream")
                case Z_NEED_DICT:
                    throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "stream needs a dictionary")
                default:
                    throw ZlibError(operation: "inflate", code: status, stream: stream)
                }
            }
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return output
    }
}
