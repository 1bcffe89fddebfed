import DequeModule

/// Compresses a stream of unknown length into one gzip member on `DeflateThreads`, pigz's
/// way: the input is cut into blocks of `blockSize`, each compressed on its own with the 32 KiB
/// before it as its dictionary, and the blocks are joined in order with their CRCs combined.
///
/// The bytes are exactly `GzipMember.compress` of the whole input with the same block size,
/// setting and header (and `offsetTable` when the stream's size was planned), whatever the
/// thread count: the blocks are the same and a block's output depends only on it, its
/// dictionary and whether it is the last.
///
/// A stream whose size is known before it starts (a regular file) gets Squeeze's offset table:
/// the header is written first with the table's shape and zero lengths, and `finish` returns
/// the header to write over it once every block's length is known. Only a caller that can
/// write at the member's start again (a file, not a pipe) plans a size.
///
/// Blocking: the caller's thread cuts blocks and hands finished ones to `output`, in order,
/// while the threads compress. At most two blocks per thread are held at once, so memory stays
/// bounded and a slow `output` slows the reading. One caller thread.
public final class ParallelGzipWriter {
    private let threads: DeflateThreads
    private let blockSize: Int
    private let output: (UnsafeRawBufferPointer) throws -> Void
    private let maxInFlight: Int
    private var inFlight = Deque<BlockTask>()
    private var pending: [UInt8] = []
    private var previous: [UInt8] = []
    private var checksum = MemberChecksum()
    private var finished = false
    /// The header written first, and the offset table's plan: blocks per span, the blocks
    /// the planned size makes, and the compressed length of each block written so far.
    private var header: GzipHeader
    private let table: (blocksPerSpan: Int, blocks: Int)?
    private var blockLengths: [Int] = []
    private var blocksSubmitted = 0
    /// Compressed bytes handed to `output` so far, header and trailer included.
    public private(set) var bytesOut: UInt64 = 0

    /// A writer of one member; writes its header to `output` at once. With `plannedSize`, the
    /// stream must be exactly that long and the member carries an offset table.
    /// - Throws: what `output` throws.
    public init(threads: DeflateThreads, blockSize: Int, header: GzipHeader, plannedSize: UInt64? = nil,
                output: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(blockSize > 0, "block size must be positive")
        self.threads = threads
        self.blockSize = blockSize
        self.output = output
        maxInFlight = 2 * threads.count
        pending.reserveCapacity(blockSize)
        var header = header
        if let plannedSize {
            let layout = BlockLayout(fileSize: plannedSize, blockSize: blockSize)
            table = GzipOffsetTable.blocksPerSpan(for: layout, engine: threads.setting.engine).map { ($0, layout.count) }
            if let table { header.offsetTable = .placeholder(for: layout, blocksPerSpan: table.blocksPerSpan) }
        } else {
            table = nil
        }
        self.header = header
        try emit(header.encoded())
    }

    /// Takes the next bytes of the stream.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "write after finish")
        var rest = bytes[...]
        while !rest.isEmpty {
            if pending.count == blockSize {
                // More input follows, so this full block is not the last.
                try submit(isLast: false)
            }
            let take = min(blockSize - pending.count, rest.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest.prefix(take)))
            rest = rest.dropFirst(take)
        }
    }

    /// Ends the stream: compresses the last block, waits for every block, writes the trailer.
    /// Returns the uncompressed length, and the header to write over the first one when the
    /// member has an offset table (same length; nil otherwise).
    /// - Throws: `EngineError` when a planned stream's length was not the plan's.
    @discardableResult
    public func finish() throws -> (length: UInt64, finalHeader: [UInt8]?) {
        precondition(!finished, "finish twice")
        finished = true
        try submit(isLast: true)
        while !inFlight.isEmpty { try writeOldest() }
        try emit(checksum.trailer.encoded())
        guard let table else { return (checksum.length, nil) }
        guard blockLengths.count == table.blocks else {
            throw EngineError(engine: threads.setting.engine, operation: "write", message: "the input's length changed while it was read")
        }
        header.offsetTable = .of(blockLengths: blockLengths, blockSize: blockSize, blocksPerSpan: table.blocksPerSpan)
        return (checksum.length, header.encoded())
    }

    private func submit(isLast: Bool) throws {
        if inFlight.count >= maxInFlight { try writeOldest() }
        // A block that starts a span of the offset table refers to nothing before it.
        let restarts = table.map { blocksSubmitted % $0.blocksPerSpan == 0 } ?? false
        blocksSubmitted += 1
        let task = BlockTask(input: pending, previous: restarts ? [] : previous, isLast: isLast)
        previous = pending
        pending = []
        pending.reserveCapacity(blockSize)
        inFlight.append(task)
        threads.submit(task)
        // Write what is already done, without waiting, so output keeps pace with input.
        while let oldest = inFlight.first, oldest.isDone { try writeOldest() }
    }

    private func writeOldest() throws {
        guard let task = inFlight.popFirst() else { return }
        let block = try task.wait()
        checksum.append(crc: block.crc, length: block.rawLength)
        if table != nil { blockLengths.append(block.bytes.count) }
        try emit(block.bytes)
    }

    private func emit(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try output($0) }
        bytesOut += UInt64(bytes.count)
    }
}
