import CISAL
import CZlib

/// Decompresses one gzip file on several threads where its deflate data can be entered in the
/// middle, and as one stream where it cannot; the output is the same either way.
///
/// A compressor that ends its blocks with a sync flush (squeeze, pigz) leaves the bytes
/// `00 00 FF FF` right before the next block. The member's data is cut into chunks of about
/// `searchedChunkBytes` at such markers, and each chunk is inflated on its own (ISA-L, no window), in
/// parallel. Chunk by chunk, in order, a chunk's output is used only if the chunk before ended
/// exactly at its start between two blocks, which proves the marker a real boundary; and only
/// if it needed nothing from before its start (squeeze's levels 0 and 2-9 never do; a chunk
/// that does fails with a distance too far back). Any other chunk is inflated again in order,
/// with the window before it, as a single stream would. Once three chunks in a row need that
/// (pigz's files), the work ahead stops, and a thread of its own inflates the rest in order,
/// each chunk whole (libdeflate) primed with the window the one before left, while this
/// thread writes; a chunk it cannot take (too long, or cut at a false marker) is streamed
/// here, and the thread starts again after it. The member's CRC-32 and length are
/// checked as ever; what follows the member (more members, zero padding) is decoded as one
/// stream. The marker is found by search, not trusted: a false one only costs a chunk's work.
///
/// A member that carries Squeeze's offset table (`GzipOffsetTable`) is cut at its restart
/// points instead of searching: no guess, and level 1's primed blocks restart there too. Its
/// chunks are read whole and inflated by libdeflate (`WholeChunkInflater`), faster than ISA-L
/// on a whole buffer. The table is proven the same way (each chunk must start where the one before ended between
/// blocks, and must decode alone), and besides, every chunk but the last must give exactly its
/// spans' bytes. A table that fails any of this is reported in `Tally.tableDefect`; its chunks
/// are then inflated in order like any others, so the output is right whatever the table says.
public struct ParallelGzipDecoder: Sendable {
    /// A chunk that inflates to more than this is left to the in-order pass (bounded memory).
    static let maximumChunkOutput = 64 << 20
    private static let window = 32 << 10
    private static let piece = 1 << 20
    /// Chunks in a row that must be inflated in order before the work ahead stops.
    static let chunksBeforeGivingUp = 3
    /// Times the thread inflating chunks in order starts, per member at most.
    static let inOrderStartsAtMost = 16

    /// Chunks decoded at once.
    public let threads: Int
    /// Compressed bytes per chunk of a member cut at its offset table's restart points. Its
    /// chunks' output takes each thread's slots: 2 MiB (about 5.5 MiB of text) was 5 % faster
    /// than 4 MiB at levels 6 and 1 (fewer fresh pages, a shorter tail), measured.
    public let chunkBytes: Int
    /// Compressed bytes per chunk of a member cut at markers found by search. Each such chunk
    /// is a guess a thread may try in vain (a pigz file's, which needs the window before it),
    /// and a pigz file's chunks are then inflated in order by a thread with two slots: half
    /// `chunkBytes` by default, since at 4 MiB a pigz file decoded 2 % slower to /dev/null and
    /// 5 % slower to a file (the slots' fresh pages), and squeeze's files without a table 2 %.
    public let searchedChunkBytes: Int
    /// Smaller files are decoded as one stream.
    public let minimumBytes: UInt64
    /// Inflate with zlib, accepting only what gzip accepts (`-t`, `squeeze test`).
    public let strict: Bool
    /// Members may follow the first one, and zero padding the last (what `gzip -d` reads).
    public let multipleMembers: Bool

    /// The smallest file cut into chunks by default: smaller ones gain too little.
    public static let defaultMinimumBytes: UInt64 = 12 << 20

    /// A decoder using `threads` threads (1: one stream), cutting members of at least
    /// `minimumBytes` into chunks of about `chunkBytes` where they carry a table, and of
    /// `searchedChunkBytes` (by default half `chunkBytes`) where markers must be searched for.
    /// `strict` and `multipleMembers` as for `GzipStreamDecoder`.
    public init(
        threads: Int, chunkBytes: Int = 2 << 20, searchedChunkBytes: Int? = nil, minimumBytes: UInt64 = defaultMinimumBytes,
        strict: Bool = false, multipleMembers: Bool = true
    ) {
        self.strict = strict
        self.multipleMembers = multipleMembers
        self.threads = max(1, threads)
        self.chunkBytes = max(4096, chunkBytes)
        self.searchedChunkBytes = max(4096, searchedChunkBytes ?? self.chunkBytes / 2)
        self.minimumBytes = minimumBytes
    }

    /// What a decompression did.
    public struct Tally: Sendable, Equatable {
        /// Bytes it produced.
        public var uncompressed: UInt64 = 0
        /// Chunks whose output decoded alone was used, and chunks inflated in order.
        public var chunksAlone = 0
        public var chunksInOrder = 0
        /// Of the chunks inflated in order, those inflated whole (libdeflate, primed with the
        /// window), not streamed.
        public var chunksInOrderWhole = 0
        /// The member's offset table cut the chunks.
        public var usedTable = false
        /// Why the member's offset table is wrong (one line), if it is.
        public var tableDefect: String?
    }

    /// Reads bytes of the file at an offset into a buffer, from any thread: how many it read,
    /// fewer than the buffer holds only at the end of the file.
    public typealias RangeReader = @Sendable (UInt64, UnsafeMutableRawBufferPointer) throws -> Int

    /// Decompresses the gzip file of `size` bytes that `read` reads (from any thread, until
    /// this returns), handing its bytes in order to `sink`. Throws `ZlibError`
    /// as `GzipStreamDecoder` does, or what `read` or `sink` throw.
    public func decompress(
        size: UInt64, read: @escaping RangeReader, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Tally {
        let source = ChunkSource(read: read)
        // The largest header Squeeze writes (a full offset table, a long name) fits.
        let head = try Self.bytes(read, at: 0, count: Int(min(size, 128 << 10)))
        guard threads > 1, size >= minimumBytes, let dataStart = Self.headerLength(head) else {
            return Tally(uncompressed: try stream(from: 0, size: size, read: read, membersBefore: 0, into: sink), chunksInOrder: 1)
        }
        var tally = Tally()
        let plan: ChunkPlan
        switch RestartPoints.read(header: head, dataStart: UInt64(dataStart), fileSize: size) {
        case .found(let points) where points.spanBytes <= UInt64(Self.maximumChunkOutput / 2):
            plan = chunks(of: points, size: size)
            tally.usedTable = true
        case .damaged(let reason):
            tally.tableDefect = reason
            plan = ChunkPlan(starts: try chunkStarts(from: UInt64(dataStart), size: size, source: source), size: size)
        case .found, .absent:
            plan = ChunkPlan(starts: try chunkStarts(from: UInt64(dataStart), size: size, source: source), size: size)
        }
        let bounds = plan.bounds
        var joiner = try ChunkJoiner(decoder: self)
        defer { joiner.close() }
        // A table's chunks are read whole (libdeflate inflates only whole buffers); searched
        // ones piece by piece, since most of a pigz file's fail after a few KiB.
        let wholeChunks = plan.table != nil && !strict
        let pipeline = ChunkPipeline(
            bounds: bounds, slots: threads * 2, limit: Self.maximumChunkOutput,
            maxInput: max(searchedChunkBytes * 4, plan.largestChunk), strict: strict,
            wholeInput: wholeChunks ? plan.largestChunk + WholeChunkInflater.sentinelRoom : nil)
        pipeline.start(threads: threads, source: source)
        defer { pipeline.stop() }
        var ahead = true
        var inOrderInARow = 0
        // Once the work ahead stops: a thread inflating the chunks in order, whole, while this
        // one writes (nil while this one streams a chunk, and when strict).
        var inOrder: ChunkPipeline?
        defer { inOrder?.stop() }
        // Its slots, kept when it stops and starts again (fresh pages cost a fault each).
        var inOrderBuffers = joiner.wholeBuffer.map { [$0] } ?? []
        // Each start costs a lock per chunk of the file: a file of many false markers must not
        // make that quadratic. After that, the in-order pass inflates chunks whole itself.
        var inOrderStarts = 0
        for (index, bound) in bounds.enumerated() {
            if !ahead, inOrder == nil, !strict, !joiner.isStreaming, index + 1 < bounds.count, inOrderStarts < Self.inOrderStartsAtMost {
                inOrderStarts += 1
                let next = ChunkPipeline(
                    bounds: bounds, first: index, slots: 2, limit: ChunkJoiner.wholeBufferLimit, maxInput: 0, strict: false,
                    wholeInput: ChunkJoiner.wholeBufferInput(searchedChunkBytes: searchedChunkBytes), reusing: inOrderBuffers)
                inOrderBuffers = next.buffers
                next.startInOrder(window: joiner.lastWindow, source: source)
                inOrder = next
            }
            let (chunk, output) = ahead ? pipeline.result(index) : inOrder?.result(index) ?? (nil, UnsafeRawBufferPointer(start: nil, count: 0))
            let (memberEnd, alone, inOrderWhole) = try joiner.take(
                chunk, output: output, start: bound.start, end: bound.end, source: source, tryWhole: inOrder == nil || ahead, sink)
            if ahead { pipeline.release(index) }
            if let running = inOrder {
                running.release(index)
                // It stopped after this chunk: what follows is streamed, or it starts again.
                if chunk?.stop != .betweenBlocks {
                    running.stop()
                    inOrder = nil
                }
            }
            if tally.usedTable, tally.tableDefect == nil, ahead,
               let defect = plan.defect(chunk: index, decodedAlone: alone ? chunk : nil, memberEnd: memberEnd) {
                tally.tableDefect = defect
            }
            if alone, ahead { tally.chunksAlone += 1 } else { tally.chunksInOrder += 1 }
            if inOrderWhole || (alone && !ahead) { tally.chunksInOrderWhole += 1 }
            inOrderInARow = alone ? 0 : inOrderInARow + 1
            // A file whose chunks need the window before them (pigz's, level 1's): the work
            // ahead is wasted and takes a core from the in-order pass. Stop it.
            if ahead, inOrderInARow >= Self.chunksBeforeGivingUp {
                pipeline.stop()
                ahead = false
            }
            if let memberEnd {
                tally.uncompressed = try joiner.finishMember(at: memberEnd, size: size, read: read, sink)
                return tally
            }
        }
        throw ChunkJoiner.truncated
    }

    /// Decodes a whole file (or what is left of it) as one stream.
    func stream(
        from offset: UInt64, size: UInt64, read: RangeReader, membersBefore: Int, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> UInt64 {
        let decoder = try GzipStreamDecoder(multipleMembers: multipleMembers, strict: strict, membersBefore: membersBefore)
        var position = offset
        while position < size {
            let bytes = try Self.bytes(read, at: position, count: Int(min(size - position, UInt64(Self.piece))))
            guard !bytes.isEmpty else { break }
            try bytes.withUnsafeBytes { try decoder.feed($0, to: sink) }
            position += UInt64(bytes.count)
        }
        try decoder.finish()
        return decoder.uncompressedBytes
    }

    /// Chunks of about `chunkBytes` of whole spans each, ending at restart points; each
    /// decodes to less than `maximumChunkOutput` bytes.
    private func chunks(of points: RestartPoints, size: UInt64) -> ChunkPlan {
        var starts = [points.offsets[0]]
        var spanCounts: [UInt64] = []
        var spans: UInt64 = 0
        for offset in points.offsets.dropFirst() {
            spans += 1
            // Below the chunk buffer's limit: a chunk that fills it exactly would not be decoded alone.
            if offset - starts[starts.count - 1] >= UInt64(chunkBytes) || (spans + 1) * points.spanBytes >= UInt64(Self.maximumChunkOutput) {
                starts.append(offset)
                spanCounts.append(spans)
                spans = 0
            }
        }
        spanCounts.append(spans + 1)
        return ChunkPlan(starts: starts, size: size, table: (spanCounts, points.spanBytes))
    }

    /// The length of the gzip header at the start of `head`, or nil when it is not one ISA-L
    /// reads in `head` (the stream decoder then says what is wrong).
    static func headerLength(_ head: [UInt8]) -> Int? {
        guard head.count > 18, head[0] == 0x1f, head[1] == 0x8b, head[3] & 0xe0 == 0 else { return nil }
        guard let inflater = squeeze_isal_inflater_create() else { return nil }
        defer { squeeze_isal_inflater_destroy(inflater) }
        squeeze_isal_inflater_begin(inflater)
        var left: UInt32 = 0
        let status = head.withUnsafeBufferPointer { squeeze_isal_inflater_header(inflater, $0.baseAddress, UInt32($0.count), &left) }
        return status == ISAL_DECOMP_OK ? head.count - Int(left) : nil
    }

    /// Where the chunks start: the member's data, then the first marker's end at or after
    /// every `searchedChunkBytes` (none in the last 8 bytes, the trailer's).
    private func chunkStarts(from dataStart: UInt64, size: UInt64, source: ChunkSource) throws -> [UInt64] {
        var starts = [dataStart]
        var target = dataStart + UInt64(searchedChunkBytes)
        let searcher = ChunkSource.MarkerSearch()
        while target + 8 < size {
            guard let found = try source.marker(from: target, before: min(size - 8, target + UInt64(searchedChunkBytes)), using: searcher) else {
                target += UInt64(searchedChunkBytes)
                continue
            }
            starts.append(found)
            target = found + UInt64(searchedChunkBytes)
        }
        return starts
    }

    /// Compressed bytes read at once, by the threads and the in-order pass: a piece small
    /// enough to stay in the core's cache between the read and the inflate, in a buffer that
    /// costs few fresh pages (a chunk read whole, 4 MiB, cost each slot 4 MiB of them, and a
    /// pigz file's chunk that fails after a few KiB the read of all of it).
    static let readPiece = 256 << 10

    /// One chunk inflated without a window into `buffer`, read piece by piece; nil where that
    /// does not work. A chunk of more than `maxInput` bytes (no marker for that long) is left to
    /// the in-order pass.
    /// With `whole` (a chunk from a table), a chunk that fits the buffer's input storage is read
    /// whole and inflated by libdeflate.
    static func decodeAlone(
        start: UInt64, end: UInt64, maxInput: Int, strict: Bool, whole: WholeChunkInflater?, source: ChunkSource, into buffer: ChunkBuffer
    ) -> DecodedChunk? {
        buffer.count = 0
        guard end - start <= UInt64(maxInput) else { return nil }
        let count = Int(end - start)
        // A chunk without a marker at its end (level 0's stored blocks, the member's last
        // chunk) is left to ISA-L, in pieces; its last bytes are read first to see.
        if let whole, count >= 4, let input = buffer.input(count + WholeChunkInflater.sentinelRoom),
           (try? source.read(end - 4, UnsafeMutableRawBufferPointer(rebasing: input[0..<4]))) == 4,
           WholeChunkInflater.isClosed(UnsafeRawBufferPointer(rebasing: input[0..<4])) {
            guard (try? source.read(start, UnsafeMutableRawBufferPointer(rebasing: input[0..<count]))) == count else { return nil }
            return whole.inflate(input, dataCount: count, into: buffer)
        }
        guard let inflater = try? RawInflater(strict: strict) else { return nil }
        do {
            try inflater.begin(window: UnsafeRawBufferPointer(start: nil, count: 0))
            var position = start
            while true {
                let pieceEnd = min(end, position + UInt64(readPiece))
                guard let input = try source.bytes(position, pieceEnd, using: buffer), let stop = try inflater.run(input, into: buffer) else { return nil }
                if case .final(let left) = stop {
                    return DecodedChunk(length: UInt64(buffer.count), crc: inflater.crc, stop: .final(left: left + Int(end - pieceEnd)))
                }
                position = pieceEnd
                guard position < end else {
                    return stop == .inBlock ? nil : DecodedChunk(length: UInt64(buffer.count), crc: inflater.crc, stop: stop)
                }
            }
        } catch {
            return nil
        }
    }

    /// `count` bytes at `offset` (fewer at the end of the file), in an array.
    static func bytes(_ read: RangeReader, at offset: UInt64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = try bytes.withUnsafeMutableBytes { try read(offset, $0) }
        bytes.removeLast(count - min(got, count))
        return bytes
    }
}
