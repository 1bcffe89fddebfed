import CISAL
import CZlib

/// ISA-L's inflate over raw deflate data that may start between any two blocks: primed with
/// the window before it (or none), it tells whether its input ended between blocks or at the
/// final block's end. One thread at a time.
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
    /// Bytes produced since `begin`.
    private(set) var produced: UInt64 = 0

    init() throws {
        guard let inflater = squeeze_isal_inflater_create() else {
            throw ZlibError(operation: "isal_inflate_init", code: Z_MEM_ERROR, message: "out of memory")
        }
        self.inflater = inflater
    }

    deinit {
        squeeze_isal_inflater_destroy(inflater)
    }

    /// Starts at a block boundary, primed with `window` (at most 32 KiB; empty at a member's start).
    func begin(window: UnsafeRawBufferPointer) throws {
        let status = squeeze_isal_inflater_begin_raw(
            inflater, window.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(min(window.count, 32 << 10)))
        guard status == ISAL_DECOMP_OK else {
            throw ZlibError(operation: "isal_inflate_set_dict", code: Z_STREAM_ERROR, message: "ISA-L error \(status)")
        }
        produced = 0
    }

    /// The CRC-32 of what it produced since `begin`.
    var crc: UInt32 { squeeze_isal_inflater_crc(inflater) }

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
