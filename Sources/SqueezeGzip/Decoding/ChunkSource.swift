import CSqueezeDeflate

/// Where `ParallelGzipDecoder` takes a file's compressed bytes: ranges read into a chunk
/// buffer, and the search for the sync-flush markers it cuts chunks at.
struct ChunkSource: Sendable {
    /// Reads any range, from any thread.
    let read: ParallelGzipDecoder.RangeReader

    /// Bytes `[start, end)` of the file, read into `buffer`'s input storage; nil when they are
    /// more than the buffer takes. Throws `ChunkJoiner.truncated` when the file ends before `end`.
    func bytes(_ start: UInt64, _ end: UInt64, using buffer: ChunkBuffer) throws -> UnsafeRawBufferPointer? {
        precondition(start <= end)
        guard end - start <= UInt64(Int.max), let input = buffer.input(Int(end - start)) else { return nil }
        guard try read(start, input) == input.count else { throw ChunkJoiner.truncated }
        return UnsafeRawBufferPointer(input)
    }

    /// The end of the first sync-flush marker (`00 00 FF FF`) that lies whole in `[start, end)`,
    /// or nil; read piece by piece into `search`'s buffer.
    func marker(from start: UInt64, before end: UInt64, using search: MarkerSearch) throws -> UInt64? {
        var position = start
        while position < end {
            // Each read overlaps the last by the marker's length less one, so none is missed.
            let wanted = Int(min(UInt64(MarkerSearch.piece), end - position))
            let piece = UnsafeMutableRawBufferPointer(rebasing: search.buffer[0..<wanted])
            let got = try read(position, piece)
            if let found = Self.find(UnsafeRawBufferPointer(rebasing: piece[0..<min(got, wanted)])) { return position + UInt64(found) }
            guard got == wanted, got >= Self.markerLength else { return nil }
            position += UInt64(got - (Self.markerLength - 1))
        }
        return nil
    }

    /// A buffer the marker search reads into, kept from search to search: a fresh one for each
    /// read cost a pigz file's decoding 4 % in page faults and copies before any inflating
    /// began (measured).
    final class MarkerSearch {
        static let piece = 64 << 10
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 64)
        deinit { buffer.deallocate() }
    }

    /// The marker's length: a match ends this far after it starts.
    private static let markerLength = 4

    /// The end of the first marker in `bytes`, relative to their start.
    private static func find(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let found = squeeze_deflate_find_sync_marker(base.assumingMemoryBound(to: UInt8.self), bytes.count)
        return found >= 0 ? found : nil
    }
}
