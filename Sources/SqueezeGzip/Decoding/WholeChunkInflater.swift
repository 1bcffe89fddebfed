import CLibDeflate

/// libdeflate's whole-buffer inflate, for a chunk read whole and decoded without a window: it
/// inflated mixed.cat's level-6 and level-1 data 16 % faster than ISA-L's streaming inflate
/// (docs/benchmarks.md). libdeflate cannot stop between two blocks; it stops at a final block.
/// So a final stored block holding eight known bytes (the sentinel) is put after the chunk.
/// A chunk that ends exactly between two blocks (after a sync flush) decodes to its own bytes
/// and then the sentinel's, having read all of its input; a chunk that ends mid-block runs on
/// into the sentinel's bytes as if they were more of its block, and fails to end like that.
/// One thread at a time.
final class WholeChunkInflater {
    private let decompressor: OpaquePointer

    /// A final stored block (header `001`, padding, LEN 8, NLEN) and its eight bytes.
    static let sentinel: [UInt8] = [0x01, 0x08, 0x00, 0xF7, 0xFF] + Array("Sq-chunk".utf8)
    private static let payload = 8

    /// Nil when libdeflate cannot allocate its decompressor.
    init?() {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        self.decompressor = decompressor
    }

    deinit {
        libdeflate_free_decompressor(decompressor)
    }

    /// Writes `window` (at most 32 KiB) at the start of `input` as a stored block that is not
    /// final: the output then starts with the window, and the data after it may refer back
    /// into it, as if primed with it. Returns the bytes written (none for an empty window).
    static func prime(_ input: UnsafeMutableRawBufferPointer, with window: UnsafeRawBufferPointer) -> Int {
        guard !window.isEmpty else { return 0 }
        precondition(window.count <= 32 << 10 && input.count >= window.count + 5)
        let length = UInt16(window.count)
        input[0] = 0  // BFINAL 0, BTYPE 00 (stored), padding
        input[1] = UInt8(truncatingIfNeeded: length)
        input[2] = UInt8(truncatingIfNeeded: length >> 8)
        input[3] = ~input[1]
        input[4] = ~input[2]
        UnsafeMutableRawBufferPointer(rebasing: input[5..<5 + window.count]).copyMemory(from: window)
        return 5 + window.count
    }

    /// Chunk `[start, end)` of `source`, which starts between two blocks, read whole into
    /// `buffer` after `window` (its last 32 KiB) stored as a block, and inflated; nil where it
    /// does not fit the buffer's input storage, or `inflate` refuses it (`checksum` as there). Throws
    /// `ChunkJoiner.truncated` when the file ends before `end`, or what the read throws.
    func inflate(
        start: UInt64, end: UInt64, window: UnsafeRawBufferPointer, checksum: Bool = true, source: ChunkSource, into buffer: ChunkBuffer
    ) throws -> DecodedChunk? {
        let window = UnsafeRawBufferPointer(rebasing: window.suffix(32 << 10))
        guard end - start <= UInt64(Int.max - 64 << 10) else { return nil }
        let count = Int(end - start)
        guard let input = buffer.input(5 + window.count + count + Self.sentinel.count) else { return nil }
        let primed = Self.prime(input, with: window)
        guard try source.read(start, UnsafeMutableRawBufferPointer(rebasing: input[primed..<primed + count])) == count else { throw ChunkJoiner.truncated }
        return inflate(input, primed: primed, dataCount: count, checksum: checksum, into: buffer)
    }

    /// The last 32 KiB of `window` followed by `output`: the window after `output`.
    static func window(_ window: [UInt8], after output: UnsafeRawBufferPointer) -> [UInt8] {
        let size = 32 << 10
        guard output.count < size else { return Array(output.suffix(size)) }
        return Array(window.suffix(size - output.count)) + Array(output)
    }

    /// Inflates the `dataCount` bytes of `input` after its first `primed` bytes (a window
    /// stored by `prime`, or none) into `buffer`. `input` must hold the sentinel's bytes after
    /// the data, which are written there. The buffer then holds the window, if any, then the
    /// data's output; the chunk returned counts only the data's, with its CRC-32 if `checksum`. Nil when the data refers back
    /// before its start (or its window), is not deflate, ends mid-block, or outgrows the buffer.
    func inflate(_ input: UnsafeMutableRawBufferPointer, primed: Int = 0, dataCount: Int, checksum: Bool = true, into buffer: ChunkBuffer) -> DecodedChunk? {
        let dataEnd = primed + dataCount
        let total = dataEnd + Self.sentinel.count
        buffer.count = 0
        guard total <= input.count, let inputBase = input.baseAddress, let room = buffer.room(), let outputBase = room.baseAddress else { return nil }
        UnsafeMutableRawBufferPointer(rebasing: input[dataEnd..<total]).copyBytes(from: Self.sentinel)
        let windowBytes = max(0, primed - 5)
        var consumed = 0
        var produced = 0
        let status = libdeflate_deflate_decompress_ex(decompressor, inputBase, total, outputBase, room.count, &consumed, &produced)
        guard status == LIBDEFLATE_SUCCESS, consumed >= primed, produced >= windowBytes else { return nil }
        let stop: RawInflater.Stop
        if consumed == total {
            // The stream ended at the sentinel's block: the chunk ended between two blocks,
            // unless the sentinel's bytes are not the output's last (a stored block of the
            // chunk's own that the cut split, say).
            let tail = UnsafeRawBufferPointer(rebasing: room[produced - min(produced, Self.payload)..<produced])
            guard produced >= windowBytes + Self.payload, tail.elementsEqual(Self.sentinel.suffix(Self.payload)) else { return nil }
            produced -= Self.payload
            stop = .betweenBlocks
        } else if consumed <= dataEnd {
            stop = .final(left: dataEnd - consumed)
        } else {
            return nil
        }
        buffer.count = produced
        let output = UnsafeRawBufferPointer(rebasing: buffer.bytes[windowBytes...])
        return DecodedChunk(length: UInt64(output.count), crc: checksum ? CRC32.checksum(output) : nil, stop: stop)
    }
}
