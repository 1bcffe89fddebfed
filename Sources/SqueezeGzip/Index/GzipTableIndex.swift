/// The `GzipIndex` of a file that is one member carrying Squeeze's offset table, made from
/// the table without decoding: a windowless point at each restart point at least a spacing
/// after the one before (the data there refers to nothing before it).
///
/// The table is checked for what can be checked without decoding: its shape and bounds
/// (`RestartPoints`), a sync-flush marker or a stored block's header at every point, and a
/// length that agrees with the trailer's ISIZE. A table that passes and still lies could only
/// have been forged with that intent; `squeeze -d` proves every point as it decodes.
public enum GzipTableIndex {
    /// What the file's table gives.
    public enum Outcome: Sendable, Equatable {
        /// The index.
        case index(GzipIndex)
        /// The file has no table (or is not gzip): index it by decoding.
        case absent
        /// The table cannot be used, and why (one line): index the file by decoding.
        case unusable(String)
    }

    /// The index of the file of `size` bytes that `read` reads, with points at least `spacing`
    /// uncompressed bytes apart. Throws what `read` throws.
    public static func make(size: UInt64, spacing: Int, read: ParallelGzipDecoder.RangeReader) throws -> Outcome {
        let head = try ParallelGzipDecoder.bytes(read, at: 0, count: Int(min(size, 128 << 10)))
        guard let dataStart = ParallelGzipDecoder.headerLength(head) else { return .absent }
        let points: RestartPoints
        switch RestartPoints.read(header: head, dataStart: UInt64(dataStart), fileSize: size) {
        case .absent: return .absent
        case .damaged(let reason): return .unusable(reason)
        case .found(let found): points = found
        }
        let trailer = try ParallelGzipDecoder.bytes(read, at: size - UInt64(GzipTrailer.size), count: GzipTrailer.size)
        guard trailer.count == GzipTrailer.size else { return .unusable("the file is shorter than its offset table") }
        let isize = (4..<8).reduce(UInt32(0)) { $0 | UInt32(trailer[$1]) << (8 * ($1 - 4)) }
        // The last span holds 1 to spanBytes bytes: one length in that range has this ISIZE.
        let before = UInt64(points.offsets.count - 1) * points.spanBytes
        let last = UInt64(isize &- UInt32(truncatingIfNeeded: before))
        guard (1...points.spanBytes).contains(last) else {
            return .unusable("the offset table does not agree with the trailer's length (another member after it?)")
        }
        for offset in points.offsets.dropFirst() {
            let around = try ParallelGzipDecoder.bytes(read, at: offset - 4, count: 9)
            guard around.count == 9 else { return .unusable("the offset table points beyond the file") }
            let marker = around[0..<4].elementsEqual([0, 0, 0xff, 0xff])
            let storedHeader = around[4] == 0 && around[5] == ~around[7] && around[6] == ~around[8]
            guard marker || storedHeader else { return .unusable("no block starts at byte \(offset), where the offset table says one does") }
        }
        var chosen: [GzipIndexPoint] = []
        var lastPoint: UInt64 = 0
        for (number, offset) in points.offsets.enumerated() {
            let uncompressed = UInt64(number) * points.spanBytes
            guard chosen.isEmpty || uncompressed - lastPoint >= UInt64(spacing) else { continue }
            chosen.append(GzipIndexPoint(compressedOffset: offset, uncompressedOffset: uncompressed, bits: 0, window: nil))
            lastPoint = uncompressed
        }
        return .index(GzipIndex(compressedSize: size, uncompressedSize: before + last, spacing: UInt32(clamping: spacing), points: chosen))
    }
}
