import DequeModule

/// Compresses a stream of unknown length into one gzip member on `DeflateThreads`, pigz's
/// way: the input is cut into blocks of `blockSize`, each compressed on its own with the 32 KiB
/// before it as its dictionary, and the blocks are joined in order with their CRCs combined.
///
/// The bytes are exactly `GzipMember.compress` of the whole input with the same block size,
/// setting and header, whatever the thread count: the blocks are the same and a block's output
/// depends only on it, its dictionary and whether it is the last.
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
    /// Compressed bytes handed to `output` so far, header and trailer included.
    public private(set) var bytesOut: UInt64 = 0

    /// A writer of one member; writes its header to `output` at once.
    /// - Throws: what `output` throws.
    public init(threads: DeflateThreads, blockSize: Int, header: GzipHeader,
                output: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(blockSize > 0, "block size must be positive")
        self.threads = threads
        self.blockSize = blockSize
        self.output = output
        maxInFlight = 2 * threads.count
        pending.reserveCapacity(blockSize)
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
    /// Returns the uncompressed length.
    @discardableResult
    public func finish() throws -> UInt64 {
        precondition(!finished, "finish twice")
        finished = true
        try submit(isLast: true)
        while !inFlight.isEmpty { try writeOldest() }
        try emit(checksum.trailer.encoded())
        return checksum.length
    }

    private func submit(isLast: Bool) throws {
        if inFlight.count >= maxInFlight { try writeOldest() }
        let task = BlockTask(input: pending, previous: previous, isLast: isLast)
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
        try emit(block.bytes)
    }

    private func emit(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try output($0) }
        bytesOut += UInt64(bytes.count)
    }
}
