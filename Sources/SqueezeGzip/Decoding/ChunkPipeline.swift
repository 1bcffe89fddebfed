import Foundation
import NIOConcurrencyHelpers

/// Decodes the chunks of `ParallelGzipDecoder` ahead of the in-order pass, on threads of its
/// own: each takes the next chunk, waits for that chunk's permit, and inflates it alone into
/// its slot (chunk i uses slot i mod `slots`); the in-order pass waits for each chunk in turn
/// and, once done with chunk i, gives chunk i + `slots` its permit. So at most `slots` chunks
/// are decoded and not yet taken, and no thread waits for a batch to end. The permit belongs
/// to a chunk, not to the slot: a thread that took a later chunk first cannot take the slot
/// from the chunk the in-order pass waits for.
final class ChunkPipeline: @unchecked Sendable {
    private let bounds: [(start: UInt64, end: UInt64)]
    private let slots: [ChunkBuffer]
    /// Per chunk: it may use its slot; and it is decoded. pthread-based (NIO's), so Thread
    /// Sanitizer sees the order they make between writing a chunk and reading it.
    private let permits: [ConditionLock<Bool>]
    private let done: [ConditionLock<Bool>]
    /// Written by the thread that decodes a chunk before it signals `done`, read after.
    private let results: UnsafeMutableBufferPointer<DecodedChunk?>
    private let state = NIOLockedValueBox((next: 0, stopped: false, running: 0))
    /// Set by the last thread to end.
    private let ended = ConditionLock(value: false)

    /// The largest chunk decoded alone, in compressed bytes.
    private let maxInput: Int
    /// Chunks are inflated with zlib (`RawInflater`'s strict one).
    private let strict: Bool
    /// Chunks are read whole and inflated by libdeflate where they fit.
    private let whole: Bool

    /// A pipeline over the chunks between `bounds` from `first` on, `slots` ahead at most; a
    /// chunk of more than `maxInput` compressed bytes is left to the in-order pass. `strict`:
    /// inflate with zlib. `wholeInput`: read chunks of up to that many bytes (with a window
    /// and `WholeChunkInflater`'s sentinel) whole and inflate them with libdeflate; nil: piece
    /// by piece with ISA-L.
    /// `reusing`: buffers to take as the first slots (fresh pages cost a fault each), which
    /// must be as large; nobody else may use them while a thread may still write them (until
    /// `stop` returns, or the in-order thread has published the chunk it refused).
    init(
        bounds: [(start: UInt64, end: UInt64)], first: Int = 0, slots: Int, limit: Int, maxInput: Int, strict: Bool, wholeInput: Int? = nil,
        reusing: [ChunkBuffer] = []
    ) {
        self.bounds = bounds
        self.maxInput = maxInput
        self.strict = strict
        whole = wholeInput != nil
        let input = max(ParallelGzipDecoder.readPiece, wholeInput ?? 0)
        let kept = reusing.prefix(max(1, slots)).filter { $0.limit >= limit && $0.inputLimit >= input }
        self.slots = kept + (kept.count..<max(1, slots)).map { _ in ChunkBuffer(limit: limit, maxInput: input) }
        let ahead = first + self.slots.count
        permits = bounds.indices.map { ConditionLock(value: $0 < ahead) }
        done = bounds.map { _ in ConditionLock(value: false) }
        results = .allocate(capacity: bounds.count)
        results.initialize(repeating: nil)
        state.withLockedValue { $0.next = first }
    }

    deinit {
        results.deinitialize().deallocate()
    }

    /// Its slots' buffers, for a pipeline after it (once `stop` has returned).
    var buffers: [ChunkBuffer] { slots }

    /// Starts `threads` threads that decode from `source` until every chunk is taken or `stop`,
    /// each chunk alone. `stop` must be called before `source` goes out of scope.
    func start(threads: Int, source: ChunkSource) {
        run(threads: max(1, threads), name: "squeeze-inflate") {
            let inflater = self.whole ? WholeChunkInflater() : nil
            return { index, slot in
                ParallelGzipDecoder.decodeAlone(
                    start: self.bounds[index].start, end: self.bounds[index].end, maxInput: self.maxInput, strict: self.strict,
                    whole: inflater, source: source, into: slot)
            }
        }
    }

    /// Starts one thread that decodes the chunks in order from the first, which starts between
    /// two blocks after `window` (the output's last 32 KiB): each whole with libdeflate, primed
    /// with the window the chunk before left, into its slot. It ends after a chunk that does
    /// not end between two blocks (the member's end), or that it could not decode (nil: the
    /// in-order pass streams that one). The in-order pass writes while it inflates.
    func startInOrder(window: [UInt8], source: ChunkSource) {
        run(threads: 1, name: "squeeze-inflate-in-order") {
            var window = window
            let inflater = WholeChunkInflater()
            return { index, slot in
                guard let inflater, let chunk = try? window.withUnsafeBytes({
                    try inflater.inflate(start: self.bounds[index].start, end: self.bounds[index].end, window: $0, checksum: false, source: source, into: slot)
                }) else {
                    self.state.withLockedValue { $0.stopped = true }
                    return nil
                }
                if chunk.stop == .betweenBlocks {
                    window = WholeChunkInflater.window(window, after: UnsafeRawBufferPointer(rebasing: slot.bytes.suffix(Int(chunk.length))))
                } else {
                    self.state.withLockedValue { $0.stopped = true }
                }
                return chunk
            }
        }
    }

    /// Runs `threads` threads, each with the decoding function `make` gives it, until every
    /// chunk is taken or `stop`.
    private func run(threads: Int, name: String, _ make: @escaping @Sendable () -> (Int, ChunkBuffer) -> DecodedChunk?) {
        state.withLockedValue { $0.running = threads }
        for number in 0..<threads {
            let thread = Thread { [self] in
                defer {
                    if state.withLockedValue({ state in
                        state.running -= 1
                        return state.running == 0
                    }) {
                        ended.lock()
                        ended.unlock(withValue: true)
                    }
                }
                let decode = make()
                while let index = take() {
                    permits[index].lock(whenValue: true)
                    permits[index].unlock()
                    if state.withLockedValue({ $0.stopped }) { return }
                    let result = decode(index, slots[index % slots.count])
                    done[index].lock()
                    results[index] = result
                    done[index].unlock(withValue: true)
                }
            }
            thread.name = threads == 1 ? name : "\(name)-\(number)"
            thread.start()
        }
    }

    /// Chunk `index` as decoded (nil where that failed) and its output, without the window a
    /// chunk in order was primed with; waits for it.
    /// The output is valid until `release(index)`.
    func result(_ index: Int) -> (chunk: DecodedChunk?, output: UnsafeRawBufferPointer) {
        done[index].lock(whenValue: true)
        defer { done[index].unlock() }
        // A chunk inflated after its window holds the window first.
        let result = results[index]
        return (result, UnsafeRawBufferPointer(rebasing: slots[index % slots.count].bytes.suffix(Int(result?.length ?? 0))))
    }

    /// The in-order pass is done with chunk `index`: its slot goes to the chunk `slots` on.
    func release(_ index: Int) {
        if index + slots.count < permits.count { Self.open(permits[index + slots.count]) }
    }

    /// Ends the threads (they finish the chunk they are on) and waits for them.
    func stop() {
        let taken = state.withLockedValue { state in
            state.stopped = true
            return state.next
        }
        // A thread waiting for its permit wakes, sees the stop and ends.
        for index in 0..<min(taken, permits.count) { Self.open(permits[index]) }
        ended.lock(whenValue: true)
        ended.unlock()
    }

    private static func open(_ permit: ConditionLock<Bool>) {
        permit.lock()
        permit.unlock(withValue: true)
    }

    private func take() -> Int? {
        state.withLockedValue { state in
            guard !state.stopped, state.next < bounds.count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }
}
