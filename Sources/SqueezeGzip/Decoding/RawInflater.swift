import CISAL
import CZlib

/// ISA-L's inflate over raw deflate data that may start between any two blocks: primed with
/// the window before it (or none), it tells whether its input ended between blocks or at the
/// final block's end. A `strict` one inflates with zlib instead, which refuses what gzip
/// refuses (see `GzipStreamDecoder`), and takes the CRC-32 of its output itself. One thread
/// at a time.
final class RawInflater {
    /// How a run of input left the stream.
    enum Stop: Equatable {
        /// Input used up mid-block, or with bits held: more must follow.
        case inBlock
        /// Input used up exactly between two blocks (after a sync flush).
        case betweenBlocks
        /// The final block ended; this many bytes of the input were left after it.
        case final(left: Int)
    }

    private let inflater: UnsafeMutablePointer<squeeze_isal_inflater>
    /// zlib's raw stream, for a strict inflater, and the CRC-32 of its output so far.
    private let zlib: ZlibStream?
    private var zlibCRC: UInt32 = 0
    /// Bytes produced since `begin`.
    private(set) var produced: UInt64 = 0

    init(strict: Bool = false) throws {
        guard let inflater = squeeze_isal_inflater_create() else {
            throw ZlibError(operation: "isal_inflate_init", code: Z_MEM_ERROR, message: "out of memory")
        }
        self.inflater = inflater
        // windowBits -15: raw deflate, a 32 KiB window.
        zlib = strict ? try ZlibStream(inflateWindowBits: -15) : nil
    }

    deinit {
        squeeze_isal_inflater_destroy(inflater)
    }

    /// Starts at a block boundary, primed with `window` (at most 32 KiB; empty at a member's start).
    func begin(window: UnsafeRawBufferPointer) throws {
        let window = UnsafeRawBufferPointer(rebasing: window.suffix(32 << 10))
        produced = 0
        if let stream = zlib?.pointer {
            zlibCRC = 0
            var status = inflateReset(stream)
            if status == Z_OK, let base = window.baseAddress, !window.isEmpty {
                status = inflateSetDictionary(stream, base.assumingMemoryBound(to: Bytef.self), uInt(window.count))
            }
            guard status == Z_OK else { throw ZlibError(operation: "inflateSetDictionary", code: status, stream: stream) }
            return
        }
        let status = squeeze_isal_inflater_begin_raw(
            inflater, window.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(window.count))
        guard status == ISAL_DECOMP_OK else {
            throw ZlibError(operation: "isal_inflate_set_dict", code: Z_STREAM_ERROR, message: "ISA-L error \(status)")
        }
    }

    /// The CRC-32 of what it produced since `begin`.
    var crc: UInt32 { zlib == nil ? squeeze_isal_inflater_crc(inflater) : zlibCRC }

    /// Inflates all of `input` (or up to the final block's end), handing the output to `sink`
    /// in pieces of at most `scratch.count` bytes. Throws `ZlibError` for data ISA-L refuses.
    func run(_ input: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Stop {
        var taken = 0
        while true {
            let (consumed, produced, stop) = try step(UnsafeRawBufferPointer(rebasing: input[taken...]), scratch)
            taken += consumed
            if produced > 0 { try sink(UnsafeRawBufferPointer(rebasing: scratch[0..<produced])) }
            if let stop { return stop }
        }
    }

    /// Inflates all of `input` (or up to the final block's end) into `buffer`, after what it
    /// holds; nil when the output outgrows the buffer's limit.
    func run(_ input: UnsafeRawBufferPointer, into buffer: ChunkBuffer) throws -> Stop? {
        var taken = 0
        while true {
            guard let room = buffer.room() else { return nil }
            let (consumed, produced, stop) = try step(UnsafeRawBufferPointer(rebasing: input[taken...]), room)
            taken += consumed
            buffer.count += produced
            if let stop { return stop }
        }
    }

    /// One call of ISA-L from `input` into `output`: what it took and gave, and how the input
    /// left the stream once it is used up (or the final block ended); nil while `output` was
    /// filled and more may come.
    private func step(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) throws -> (consumed: Int, produced: Int, stop: Stop?) {
        if let stream = zlib?.pointer { return try step(zlib: stream, input, output) }
        var empty: UInt8 = 0
        return try withUnsafeMutablePointer(to: &empty) { placeholder in
            // ISA-L wants pointers even for no input.
            let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(placeholder)
            let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? placeholder
            let room = UInt32(min(output.count, Int(UInt32.max)))
            var inputLeft: UInt32 = 0
            var outputLeft: UInt32 = 0
            var done: Int32 = 0
            let status = squeeze_isal_inflater_step(
                inflater, base, UInt32(min(input.count, Int(UInt32.max))), out, room, &inputLeft, &outputLeft, &done)
            let consumed = min(input.count, Int(UInt32.max)) - Int(inputLeft)
            let produced = Int(room - outputLeft)
            self.produced += UInt64(produced)
            guard status >= ISAL_DECOMP_OK else { throw Self.dataError(status) }
            if done != 0 {
                // The whole bytes ISA-L read past the final block are given back.
                var buffered: (UInt64, UInt64) = (0, 0)
                let held = withUnsafeMutableBytes(of: &buffered) {
                    squeeze_isal_inflater_take_buffered(inflater, $0.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
                return (consumed, produced, .final(left: input.count - consumed + Int(held)))
            }
            if outputLeft > 0 && consumed == input.count {
                return (consumed, produced, squeeze_isal_inflater_between_blocks(inflater) != 0 ? .betweenBlocks : .inBlock)
            }
            return (consumed, produced, nil)
        }
    }

    /// `step` with zlib: between blocks when the input ended where it stopped after a block,
    /// with no bits held (bit 7 of `data_type`, no count of unused bits, not the last block).
    private func step(zlib stream: UnsafeMutablePointer<z_stream>, _ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) throws -> (consumed: Int, produced: Int, stop: Stop?) {
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        let offered = min(input.count, Int(UInt32.max))
        let room = min(output.count, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(offered)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(room)
        // Z_BLOCK: zlib stops after each block, in its block-type state; without it, it would
        // go on into the next block's header and could not tell that the input ended between.
        let status = inflate(stream, Z_BLOCK)
        let consumed = offered - Int(stream.pointee.avail_in)
        let produced = room - Int(stream.pointee.avail_out)
        if produced > 0 {
            zlibCRC = CRC32.checksum(UnsafeRawBufferPointer(rebasing: output[0..<produced]), seed: zlibCRC)
            self.produced += UInt64(produced)
        }
        switch status {
        case Z_STREAM_END:
            return (consumed, produced, .final(left: input.count - consumed))
        case Z_OK, Z_BUF_ERROR:
            guard stream.pointee.avail_out > 0, consumed == input.count else {
                // Z_BUF_ERROR with room and input left cannot happen; with no room, more comes.
                return (consumed, produced, nil)
            }
            let between = stream.pointee.data_type & 0xC7 == 128
            return (consumed, produced, between ? .betweenBlocks : .inBlock)
        default:
            throw ZlibError(operation: "inflate", code: status, stream: stream)
        }
    }

    /// zlib's words for ISA-L's errors in deflate data.
    static func dataError(_ status: Int32) -> ZlibError {
        let reason = switch status {
        case ISAL_INVALID_BLOCK: "invalid block type or lengths"
        case ISAL_INVALID_SYMBOL: "invalid code"
        case ISAL_INVALID_LOOKBACK: "invalid distance too far back"
        default: "ISA-L error \(status)"
        }
        return ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "invalid compressed data: \(reason)")
    }
}
