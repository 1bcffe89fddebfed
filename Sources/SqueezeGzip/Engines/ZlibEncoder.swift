import CZlib

/// zlib's deflate: raw (windowBits −15), memLevel 8, default strategy; the dictionary through
/// `deflateSetDictionary`, non-final blocks ended with `Z_SYNC_FLUSH`, the last with `Z_FINISH`.
/// The stream is set up once and `deflateReset` between blocks, so the output depends only on
/// the block, its dictionary, the level and `isLast`.
final class ZlibEncoder: BlockEncoder {
    private let owner: ZlibStream
    private var stream: UnsafeMutablePointer<z_stream> { owner.pointer }

    /// Opens the stream at `level` (0...9).
    init(level: Int) throws {
        guard (0...9).contains(level) else {
            throw ZlibError(operation: "deflateInit2", code: Z_STREAM_ERROR,
                            message: "level \(level) is outside 0...9")
        }
        owner = try ZlibStream(deflateLevel: Int32(level), windowBits: -15)
    }

    func encode(_ block: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, isLast: Bool,
                into output: inout [UInt8]) throws -> Int {
        // Reset first so a block that failed earlier cannot leak state into this one.
        let resetStatus = deflateReset(stream)
        guard resetStatus == Z_OK else {
            throw ZlibError(operation: "deflateReset", code: resetStatus, stream: stream)
        }
        try setDictionary(dictionary)
        // deflateBound covers a finished stream; the slack covers the sync-flush marker.
        let bound = Int(deflateBound(stream, uLong(block.count))) + 64
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }

        var produced = 0
        var consumed = 0
        defer {
            // The pointers refer to caller memory that is only valid during this call.
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        // avail_in is 32-bit, so feed very large blocks in pieces; only the final piece flushes.
        repeat {
            let piece = min(block.count - consumed, Int(UInt32.max))
            let isFinalPiece = consumed + piece == block.count
            let flush = isFinalPiece ? (isLast ? Z_FINISH : Z_SYNC_FLUSH) : Z_NO_FLUSH
            stream.pointee.next_in = block.baseAddress.map {
                UnsafeMutableRawPointer(mutating: $0 + consumed).assumingMemoryBound(to: Bytef.self)
            }
            stream.pointee.avail_in = uInt(piece)

            // zlib's contract: keep calling while it fills the output completely; once it
            // leaves space, all input is consumed and the requested flush is written.
            var status: Int32
            repeat {
                if produced == output.count {
                    output.append(contentsOf: repeatElement(0, count: max(output.count, 1024)))
                }
                status = output.withUnsafeMutableBytes { out -> Int32 in
                    stream.pointee.next_out = out.baseAddress.map {
                        ($0 + produced).assumingMemoryBound(to: Bytef.self)
                    }
                    stream.pointee.avail_out = uInt(min(out.count - produced, Int(UInt32.max)))
                    let before = stream.pointee.avail_out
                    let status = deflate(stream, flush)
                    produced += Int(before - stream.pointee.avail_out)
                    return status
                }
                // Z_BUF_ERROR only means "no progress possible" and is not fatal here.
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw ZlibError(operation: "deflate", code: status, stream: stream)
                }
            } while stream.pointee.avail_out == 0

            guard stream.pointee.avail_in == 0, !(flush == Z_FINISH && status != Z_STREAM_END) else {
                throw ZlibError(operation: "deflate", code: status,
                                message: "stream did not finish the block")
            }
            consumed += piece
        } while consumed < block.count
        return produced
    }

    private func setDictionary(_ dictionary: UnsafeRawBufferPointer) throws {
        guard let base = dictionary.baseAddress, !dictionary.isEmpty else { return }
        let status = deflateSetDictionary(stream, base.assumingMemoryBound(to: Bytef.self),
                                          uInt(dictionary.count))
        guard status == Z_OK else {
            throw ZlibError(operation: "deflateSetDictionary", code: status, stream: stream)
        }
    }
}
