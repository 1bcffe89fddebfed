/// Squeeze's table of restart points, carried in a gzip header extra subfield (RFC 1952
/// FEXTRA) of a member of several blocks: where, in the compressed data, a decoder can start
/// without the window before it. Every other decoder skips the subfield. docs/format.md
/// specifies its bytes.
///
/// The member's uncompressed data is cut into spans of `spanBytes` (the last may be shorter);
/// each span starts on a block boundary that refers to nothing before it, and the table holds
/// the compressed length of every span but the last (the member's end bounds the last).
/// Lengths are fixed-width, so the header's size follows from the block layout alone: a
/// writer that learns the lengths only as blocks come can write the header first and its
/// final bytes last, in place.
public struct GzipOffsetTable: Sendable, Equatable {
    /// The subfield's ID, "Sq" (not in the registry of RFC 1952 subfield IDs).
    public static let identifier: [UInt8] = [0x53, 0x71]
    /// The layout version written and read.
    public static let version: UInt8 = 1
    /// Subfield data before the lengths: version, span size.
    static let fixedBytes = 1 + 4
    /// Bytes per span length.
    static let entryBytes = 4
    /// Most lengths: FEXTRA's XLEN counts the subfield's own 4-byte header too.
    public static let maximumEntries = (Int(UInt16.max) - 4 - fixedBytes) / entryBytes
    /// Largest span, so that a span's compressed length always fits in 32 bits.
    public static let maximumSpanBytes = 1 << 30
    /// Uncompressed bytes between restart points that a dictionary-primed engine (ISA-L,
    /// level 1) gives up its priming for; docs/benchmarks.md measures the cost.
    public static let primedRestartBytes = 4 << 20

    /// Uncompressed bytes of every span but the last.
    public var spanBytes: UInt32
    /// The compressed length of every span but the last, in order.
    public var spanLengths: [UInt32]

    /// A table from its parts.
    public init(spanBytes: UInt32, spanLengths: [UInt32]) {
        self.spanBytes = spanBytes
        self.spanLengths = spanLengths
    }

    /// Blocks per span for a member of `layout` compressed with `engine`, or nil when the
    /// member gets no table (one block; spans too large). Every block starts a span where the
    /// engine uses no dictionary; a primed engine restarts only every `primedRestartBytes`.
    public static func blocksPerSpan(for layout: BlockLayout, engine: CompressionEngine) -> Int? {
        let blocks = layout.count
        guard blocks > 1 else { return nil }
        let minimum = engine.usesDictionary ? (primedRestartBytes + layout.blockSize - 1) / layout.blockSize : 1
        // Enough blocks per span that the lengths fit in the subfield.
        let fitting = (blocks + maximumEntries) / (maximumEntries + 1)
        let perSpan = max(minimum, fitting)
        guard perSpan < blocks, layout.blockSize <= maximumSpanBytes / perSpan else { return nil }
        return perSpan
    }

    /// A table of zero lengths with `layout`'s shape: the same size as the real one, for a
    /// header written before the blocks are compressed.
    public static func placeholder(for layout: BlockLayout, blocksPerSpan: Int) -> GzipOffsetTable {
        let spans = (layout.count + blocksPerSpan - 1) / blocksPerSpan
        return GzipOffsetTable(spanBytes: UInt32(layout.blockSize * blocksPerSpan), spanLengths: Array(repeating: 0, count: spans - 1))
    }

    /// The table of a member whose blocks, in order, have compressed lengths `blockLengths`
    /// (at least the blocks of every span but the last). A span past 32 bits (no engine makes
    /// one; only lengths reported from outside could) is clamped, never a trap: a reader
    /// checks a table's bounds anyway.
    public static func of(blockLengths: [Int], blockSize: Int, blocksPerSpan: Int) -> GzipOffsetTable {
        let spans = (blockLengths.count + blocksPerSpan - 1) / blocksPerSpan
        let lengths = (0..<max(0, spans - 1)).map { span in
            UInt32(clamping: blockLengths[(span * blocksPerSpan)..<((span + 1) * blocksPerSpan)].reduce(0) { $0 &+ max(0, $1) })
        }
        return GzipOffsetTable(spanBytes: UInt32(blockSize * blocksPerSpan), spanLengths: lengths)
    }

    /// Where the span lengths of Squeeze's subfield lie in the encoded `header`, nil when it has
    /// none (or its extra field does not hold together): the bytes a member's writer fills in
    /// once the blocks are compressed, so a checker compares the rest of the header exactly.
    public static func lengthsRange(in header: [UInt8]) -> Range<Int>? {
        let extraStart = 12
        guard header.count >= extraStart, header[3] & 0x04 != 0 else { return nil }
        let end = extraStart + (Int(header[10]) | Int(header[11]) << 8)
        guard header.count >= end else { return nil }
        var position = extraStart
        while position + 4 <= end {
            let length = Int(header[position + 2]) | Int(header[position + 3]) << 8
            guard position + 4 + length <= end else { return nil }
            if header[position..<(position + 2)].elementsEqual(identifier) {
                guard length >= fixedBytes else { return nil }
                return (position + 4 + fixedBytes)..<(position + 4 + length)
            }
            position += 4 + length
        }
        return nil
    }

    /// The whole subfield: ID, LEN, version, span size, lengths (little-endian).
    public func subfield() -> [UInt8] {
        precondition(spanLengths.count <= Self.maximumEntries, "an offset table of \(spanLengths.count) entries does not fit FEXTRA")
        var bytes = Self.identifier
        let length = Self.fixedBytes + spanLengths.count * Self.entryBytes
        bytes.reserveCapacity(4 + length)
        Self.append(UInt16(length), to: &bytes)
        bytes.append(Self.version)
        Self.append(spanBytes, to: &bytes)
        for entry in spanLengths { Self.append(entry, to: &bytes) }
        return bytes
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
