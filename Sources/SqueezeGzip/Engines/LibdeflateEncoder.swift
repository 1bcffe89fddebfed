import CLibDeflate
import CSqueezeDeflate

/// libdeflate's whole-buffer compressor. It has no preset dictionary, so each block is
/// compressed on its own (`dictionary` is ignored), and its output always ends with BFINAL set
/// wherever the bits end. A block that is not the file's last is made continuable: the walk
/// in `squeeze_deflate_find_end` finds the final block's header, its BFINAL bit is cleared,
/// and an empty stored block (`000`, padding, `00 00 FF FF`) ends the stream byte-aligned,
/// exactly as a sync flush would.
final class LibdeflateEncoder: BlockEncoder {
    private let compressor: OpaquePointer

    /// A compressor at `level` (0...12).
    init(level: Int) throws {
        guard CompressionEngine.libdeflate.levels.contains(level),
              let compressor = libdeflate_alloc_compressor(Int32(level)) else {
            throw EngineError(engine: .libdeflate, operation: "libdeflate_alloc_compressor",
                              message: "cannot create a compressor at level \(level)")
        }
        self.compressor = compressor
    }

    deinit {
        libdeflate_free_compressor(compressor)
    }

    /// Bytes the continuation can add after libdeflate's output: one spill byte and LEN/NLEN.
    private static let markerSlack = 5

    func encode(_ block: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, isLast: Bool,
                into output: inout [UInt8]) throws -> Int {
        let bound = libdeflate_deflate_compress_bound(compressor, block.count) + Self.markerSlack
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        var dummy: UInt8 = 0
        return try withUnsafeMutablePointer(to: &dummy) { empty in
            try output.withUnsafeMutableBytes { out -> Int in
                guard let outBase = out.baseAddress else { return 0 }
                // libdeflate wants a pointer even for no input.
                let input = block.baseAddress ?? UnsafeRawPointer(empty)
                let written = libdeflate_deflate_compress(compressor, input, block.count, outBase, out.count - Self.markerSlack)
                guard written > 0 else {
                    throw EngineError(engine: .libdeflate, operation: "libdeflate_deflate_compress",
                                      message: "output did not fit in \(out.count) bytes")
                }
                if isLast { return written }
                return try Self.continueStream(out, length: written)
            }
        }
    }

    /// Turns a finished stream of `length` bytes into a continuable one; returns the new length.
    private static func continueStream(_ out: UnsafeMutableRawBufferPointer, length: Int) throws -> Int {
        var ends = squeeze_deflate_ends()
        let bytes = out.bindMemory(to: UInt8.self)
        guard let base = bytes.baseAddress, squeeze_deflate_find_end(base, length, &ends) == 0,
              (ends.end_bit + 7) / 8 == UInt64(length) else {
            throw EngineError(engine: .libdeflate, operation: "continue stream",
                              message: "could not find the end of libdeflate's output")
        }
        let header = Int(ends.final_header_bit)
        bytes[header / 8] &= ~UInt8(1 << (header % 8))
        // The empty stored block's three header bits go into the padding after the last code
        // if it has room for them (libdeflate pads with zeros), else into one more zero byte.
        let padding = (8 - Int(ends.end_bit % 8)) % 8
        var end = length
        if padding < 3 {
            bytes[end] = 0
            end += 1
        }
        for byte: UInt8 in [0x00, 0x00, 0xFF, 0xFF] {
            bytes[end] = byte
            end += 1
        }
        return end
    }
}
