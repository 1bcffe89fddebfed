import CLibDeflate

/// libdeflate's whole-buffer inflate, for a chunk read whole: it inflated mixed.cat's level-6
/// and level-1 data 16 % faster than ISA-L's streaming inflate (docs/architecture.md).
///
/// libdeflate cannot stop between two blocks, only after a final block, and does not say where
/// its input left the stream; ISA-L, streaming, does. A chunk that ends between two blocks ends
/// with a sync flush: an empty stored block, whose header bits sit in the bytes before
/// `00 00 FF FF` (its LEN and NLEN). So those four bytes are replaced: LEN 16 and its NLEN, 16
/// random bytes chosen when the inflater is made, then an empty final block (`03 00`). The
/// bytes before them are the file's, so libdeflate's parse of them is the stream's own; it can
/// read the 16 random bytes out, end exactly at the input's end, only if that parse was then
/// waiting for a stored block's LEN at a whole byte. Then the file has an empty stored block
/// there, and the chunk ends between two blocks. In any other state it reads the replaced bytes
/// as something else: a stored block of the file's own that runs on over them copies them out
/// whole, LEN and NLEN before the random bytes, which is refused (a chunk of the stream's own
/// whose output ends in those four bytes is refused too: ISA-L then streams it); a Huffman-coded
/// block would have to decode the random bytes, unknown when the file was made, to themselves.
/// (Sentinels put after the marker were fooled: a block cut short took their first bits to
/// finish its own code, then read the rest as meant. The tests found those, and a review the
/// stored block that runs on.) A chunk that does not end with the marker (level 0's stored
/// blocks, a member's last chunk) is left to ISA-L. libdeflate, like ISA-L, takes some invalid
/// data that zlib and gzip refuse (length symbols 286-287, distance symbols 30-31): `-t` and
/// `squeeze test` inflate with zlib.
/// One thread at a time.
final class WholeChunkInflater {
    private let decompressor: OpaquePointer
    /// The random bytes, and what replaces a chunk's closing `00 00 FF FF`.
    let payload: [UInt8]
    let sentinel: [UInt8]

    /// Bytes a chunk's input needs after its data: the sentinel less the marker it replaces.
    static let sentinelRoom = 4 + 16 + 2 - 4

    private static let marker: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// Nil when libdeflate cannot allocate its decompressor.
    init?() {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        self.decompressor = decompressor
        var random = SystemRandomNumberGenerator()
        payload = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        sentinel = [0x10, 0x00, 0xEF, 0xFF] + payload + [0x03, 0x00]
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
        guard let input = buffer.input(5 + window.count + count + Self.sentinelRoom) else { return nil }
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

    /// Whether `data` ends with a sync-flush marker: a chunk that does not is not inflated here
    /// (ISA-L, streaming, sees where it ends).
    static func isClosed(_ data: UnsafeRawBufferPointer) -> Bool {
        data.count >= marker.count && data[data.count - marker.count..<data.count].elementsEqual(marker)
    }

    /// Inflates the `dataCount` bytes of `input` after its first `primed` bytes (a window
    /// stored by `prime`, or none) into `buffer`. `input` must have `sentinelRoom` bytes after
    /// the data: a closing marker is replaced by the sentinel there. The buffer then holds the window, if any, then
    /// the data's output; the chunk returned counts only the data's, with its CRC-32 if
    /// `checksum`. Nil when the data does not end with a marker, refers back before its start
    /// (or its window), is not deflate, ends mid-block, or outgrows the buffer.
    func inflate(_ input: UnsafeMutableRawBufferPointer, primed: Int = 0, dataCount: Int, checksum: Bool = true, into buffer: ChunkBuffer) -> DecodedChunk? {
        let dataEnd = primed + dataCount
        buffer.count = 0
        guard dataEnd + Self.sentinelRoom <= input.count, let inputBase = input.baseAddress, let room = buffer.room(), let outputBase = room.baseAddress else { return nil }
        guard Self.isClosed(UnsafeRawBufferPointer(rebasing: input[primed..<dataEnd])) else { return nil }
        // Where the file's bytes that libdeflate reads end, and where its input ends.
        let fileEnd = dataEnd - Self.marker.count
        let total = fileEnd + sentinel.count
        UnsafeMutableRawBufferPointer(rebasing: input[fileEnd..<total]).copyBytes(from: sentinel)
        let windowBytes = max(0, primed - 5)
        var consumed = 0
        var produced = 0
        let status = libdeflate_deflate_decompress_ex(decompressor, inputBase, total, outputBase, room.count, &consumed, &produced)
        guard status == LIBDEFLATE_SUCCESS, consumed >= primed, produced >= windowBytes else { return nil }
        let stop: RawInflater.Stop
        if consumed == total {
            let tail = UnsafeRawBufferPointer(rebasing: room[produced - min(produced, payload.count)..<produced])
            guard produced >= windowBytes + payload.count, tail.elementsEqual(payload) else { return nil }
            // A stored block of the file's own that ran on over the sentinel copied its LEN and
            // NLEN out before the random bytes; the sync flush's empty block copies nothing.
            let header = sentinel.count - payload.count - 2
            if produced >= windowBytes + payload.count + header,
               room[produced - payload.count - header..<produced - payload.count].elementsEqual(sentinel.prefix(header)) {
                return nil
            }
            produced -= payload.count
            stop = .betweenBlocks
        } else if consumed <= fileEnd {
            // The member's final block ended in the file's bytes.
            stop = .final(left: dataEnd - consumed)
        } else {
            return nil
        }
        buffer.count = produced
        let output = UnsafeRawBufferPointer(rebasing: buffer.bytes[windowBytes...])
        return DecodedChunk(length: UInt64(output.count), crc: checksum ? CRC32.checksum(output) : nil, stop: stop)
    }
}
