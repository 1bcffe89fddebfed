/// Where `ParallelGzipDecoder` cuts a member's data into chunks: at sync-flush markers it
/// found, or at the restart points of the member's offset table, whose chunks must also decode
/// to the bytes the table says.
struct ChunkPlan {
    /// Each chunk's first byte and end; the last ends at the file's end.
    let bounds: [(start: UInt64, end: UInt64)]
    /// For a plan from a table: the spans in each chunk, and the bytes of every span but the
    /// member's last.
    let table: (spanCounts: [UInt64], spanBytes: UInt64)?

    init(starts: [UInt64], size: UInt64, table: (spanCounts: [UInt64], spanBytes: UInt64)? = nil) {
        bounds = starts.indices.map { (start: starts[$0], end: $0 + 1 < starts.count ? starts[$0 + 1] : size) }
        self.table = table
    }

    /// The most compressed bytes of a chunk before the last, which threads must be able to
    /// take whole (a plan from a table, whose spans are bounded); 0 for a plan from markers.
    var largestChunk: Int {
        guard table != nil else { return 0 }
        return Int(clamping: bounds.dropLast().map { $0.end - $0.start }.max() ?? 0)
    }

    /// What chunk `index` of a plan from a table shows wrong, given its output decoded alone
    /// when that was used (nil when the chunk was inflated in order) and whether its member
    /// ended in it; nil when nothing.
    func defect(chunk index: Int, decodedAlone chunk: DecodedChunk?, memberEnd: UInt64?) -> String? {
        guard let table else { return nil }
        let start = bounds[index].start
        guard let chunk else { return "the offset table does not match the data (no restart point at byte \(start) or after it)" }
        let spans = table.spanCounts[index]
        let isLast = index + 1 == bounds.count
        // The member's last span holds 1 to `spanBytes` bytes, every other exactly `spanBytes`.
        let expected = isLast ? (spans - 1) * table.spanBytes + 1...spans * table.spanBytes : spans * table.spanBytes...spans * table.spanBytes
        if !expected.contains(chunk.length) {
            return "the offset table does not match the data (\(chunk.length) bytes from byte \(start), the table says \(expected.upperBound))"
        }
        if memberEnd != nil, !isLast {
            return "the offset table does not match the data (the member ends before its last restart point)"
        }
        return nil
    }
}
