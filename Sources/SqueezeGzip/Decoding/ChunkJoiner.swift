import CZlib

/// The in-order pass of `ParallelGzipDecoder` over one member: takes its chunks in order,
/// uses a chunk decoded on its own where the chunk before ended exactly at its start between
/// two blocks, and inflates any other as one stream with the window before it; keeps the
/// member's CRC-32 and length for its trailer.
struct ChunkJoiner {
    private let inflater: RawInflater
    private let scratch: UnsafeMutableRawBufferPointer
    /// Where a chunk inflated in order is read (only its input storage is used).
    private let inputBuffer = ChunkBuffer(limit: 1, maxInput: ParallelGzipDecoder.readPiece)
    /// A chunk that starts between blocks is inflated whole by libdeflate, primed with the
    /// window (nil when strict, or libdeflate could not start): 13 % faster than ISA-L on a
    /// pigz file. Any other chunk, or one libdeflate refuses, is streamed by `inflater`.
    private let whole: (inflater: WholeChunkInflater, buffer: ChunkBuffer, maxInput: Int)?
    /// The inflater is inside a block: the next chunk continues its stream.
    private var streaming = false
    private var crc: UInt32 = 0
    /// `crc` where the stream the inflater is on began.
    private var crcBeforeStream: UInt32 = 0
    private var length: UInt64 = 0
    /// At least the last 32 KiB produced (all of it, when less).
    private var window: [UInt8] = []
    private static let windowSize = 32 << 10

    /// What follows the member is decoded as `decoder` says (more members or not, strictly or not).
    private let decoder: ParallelGzipDecoder

    init(decoder: ParallelGzipDecoder) throws {
        self.decoder = decoder
        inflater = try RawInflater(strict: decoder.strict)
        scratch = .allocate(byteCount: 1 << 20, alignment: 64)
        if !decoder.strict, let wholeInflater = WholeChunkInflater() {
            // The buffer's pages are touched only as far as chunks fill them.
            let buffer = ChunkBuffer(limit: Self.wholeBufferLimit, maxInput: Self.wholeBufferInput(searchedChunkBytes: decoder.searchedChunkBytes))
            whole = (wholeInflater, buffer, Self.wholeInput(searchedChunkBytes: decoder.searchedChunkBytes))
        } else {
            whole = nil
        }
    }

    /// Whether the next chunk continues the stream it is inside (and so must be streamed).
    var isStreaming: Bool { streaming }

    /// The buffer it inflates chunks whole into, for a pipeline that inflates them in order
    /// instead (while that runs, the joiner takes its chunks and does not use the buffer).
    var wholeBuffer: ChunkBuffer? { whole?.buffer }

    /// The most compressed bytes of a chunk it inflates whole.
    static func wholeInput(searchedChunkBytes: Int) -> Int { searchedChunkBytes * 4 }

    /// Room for a chunk inflated whole: the window, the chunk and the sentinel after it.
    static func wholeBufferInput(searchedChunkBytes: Int) -> Int {
        5 + windowSize + wholeInput(searchedChunkBytes: searchedChunkBytes) + WholeChunkInflater.sentinelRoom
    }

    /// The output room of a chunk inflated whole: the window, then the chunk's output.
    static let wholeBufferLimit = windowSize + ParallelGzipDecoder.maximumChunkOutput

    /// The last 32 KiB of output (less at the member's start): the window the next chunk sees.
    var lastWindow: [UInt8] { Array(window.suffix(Self.windowSize)) }

    /// Frees the scratch buffer; the joiner is not used after.
    func close() {
        scratch.deallocate()
    }

    /// Takes the chunk `[start, end)` of the file, decoded alone (into `output`) or not; returns the file
    /// offset where the member's deflate data ends once it has ended, whether the chunk's
    /// output decoded alone was used, and whether it was inflated in order whole.
    /// `tryWhole: false`: libdeflate already refused the chunk with this window; stream it.
    mutating func take(
        _ chunk: DecodedChunk?, output: UnsafeRawBufferPointer, start: UInt64, end: UInt64, source: ChunkSource,
        tryWhole: Bool = true, _ sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (memberEnd: UInt64?, alone: Bool, whole: Bool) {
        if !streaming, let chunk {
            try sink(output)
            remember(output)
            crc = CRC32.combine(crc, chunk.crc ?? CRC32.checksum(output), secondLength: Int64(clamping: chunk.length))
            length += chunk.length
            if case .final(let left) = chunk.stop { return (end - UInt64(left), true, false) }
            return (nil, true, false)
        }
        guard start < end else { return (nil, false, false) }
        if !streaming, tryWhole, case let (true, memberEnd) = try takeWhole(start: start, end: end, source: source, sink) {
            return (memberEnd, false, true)
        }
        if !streaming {
            try window.suffix(Self.windowSize).withUnsafeBytes { try inflater.begin(window: $0) }
            crcBeforeStream = crc
        }
        // Read in pieces (a chunk without markers may be the whole file), into a buffer kept
        // from piece to piece: fresh pages cost a fault each.
        var position = start
        var stop = RawInflater.Stop.inBlock
        var memberEnd: UInt64?
        while position < end, memberEnd == nil {
            guard let input = try source.bytes(position, min(end, position + UInt64(ParallelGzipDecoder.readPiece)), using: inputBuffer) else { throw Self.truncated }
            stop = try inflater.run(input, scratch: scratch) { output in
                try sink(output)
                remember(output)
                length += UInt64(output.count)
            }
            position += UInt64(input.count)
            if case .final(let left) = stop { memberEnd = position - UInt64(left) }
        }
        streaming = stop == .inBlock
        // ISA-L keeps the stream's CRC as it inflates: combined once the stream ends.
        if !streaming { crc = CRC32.combine(crcBeforeStream, inflater.crc, secondLength: Int64(clamping: inflater.produced)) }
        return (memberEnd, false, false)
    }

    /// Chunk `[start, end)`, which starts between blocks, inflated whole with the window
    /// before it: whether that was done (if not, the chunk is streamed), and where the member
    /// ended in it, if it did.
    private mutating func takeWhole(
        start: UInt64, end: UInt64, source: ChunkSource, _ sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (taken: Bool, memberEnd: UInt64?) {
        guard let whole, end - start <= UInt64(whole.maxInput),
              let chunk = try window.suffix(Self.windowSize).withUnsafeBytes({
                  try whole.inflater.inflate(start: start, end: end, window: $0, source: source, into: whole.buffer)
              }) else { return (false, nil) }
        let output = UnsafeRawBufferPointer(rebasing: whole.buffer.bytes.suffix(Int(chunk.length)))
        try sink(output)
        remember(output)
        crc = CRC32.combine(crc, chunk.crc ?? CRC32.checksum(output), secondLength: Int64(clamping: chunk.length))
        length += chunk.length
        if case .final(let left) = chunk.stop { return (true, end - UInt64(left)) }
        return (true, nil)
    }

    /// The member's deflate data ended at `memberEnd`: checks its trailer, then decodes what
    /// follows it (more members, zero padding) as one stream. Returns the file's uncompressed length.
    func finishMember(at memberEnd: UInt64, size: UInt64, read: ParallelGzipDecoder.RangeReader, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> UInt64 {
        let trailer = try ParallelGzipDecoder.bytes(read, at: memberEnd, count: GzipTrailer.size)
        guard trailer.count == GzipTrailer.size else { throw Self.truncated }
        let storedCRC = trailer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) }
        let storedLength = trailer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
        guard storedCRC == crc else { throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "incorrect data check") }
        guard storedLength == UInt32(truncatingIfNeeded: length) else {
            throw ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "incorrect length check")
        }
        let next = memberEnd + UInt64(GzipTrailer.size)
        guard next < size else { return length }
        return try length + decoder.stream(from: next, size: size, read: read, membersBefore: 1, into: sink)
    }

    /// Keeps the last 32 KiB of output (trimmed now and then, not on every piece).
    private mutating func remember(_ output: UnsafeRawBufferPointer) {
        if output.count >= Self.windowSize {
            window = Array(output.suffix(Self.windowSize))
        } else {
            window.append(contentsOf: output)
            if window.count > 4 * Self.windowSize { window.removeFirst(window.count - Self.windowSize) }
        }
    }

    static let truncated = ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "unexpected end of input: the gzip member is truncated")
}
