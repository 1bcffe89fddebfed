/// How much of one read goes from the device straight into the caller's buffer (`O_DIRECT`),
/// bypassing the page cache: the leading whole pages, when the read is big enough to be worth
/// it and starts aligned in the file and in memory. The rest (a file's last partial page, or
/// the whole of a read that does not qualify) goes through the page cache as before.
///
/// Why: a coordinator feeding remote workers reads every source byte once and never again.
/// Through the page cache that costs a kernel copy of each byte (about 0.2 CPU-s per GB here,
/// an eighth of such a coordinator's CPU) and fills memory with pages nobody reads twice; a
/// direct read costs the device's transfer, not the CPU's.
public struct DirectReadSpan: Equatable, Sendable {
    /// Offset, length and buffer alignment asked of a direct read: a page, which satisfies the
    /// logical block size of every device and file system that takes `O_DIRECT` at all.
    public static let alignment = 4096
    /// Reads shorter than this stay buffered: for a small read the page cache is cheaper than
    /// a synchronous trip to the device.
    public static let minimumBytes = 1 << 20

    /// Leading bytes of the read to read direct: a multiple of the alignment, 0 for none.
    public let directBytes: Int

    /// The span for a read of `count` bytes at `fileOffset` into memory at `address`.
    public init(fileOffset: UInt64, count: Int, address: UInt, alignment: Int = Self.alignment, minimum: Int = Self.minimumBytes) {
        guard alignment > 0, count >= max(minimum, alignment),
              fileOffset % UInt64(alignment) == 0, address % UInt(alignment) == 0 else {
            directBytes = 0
            return
        }
        directBytes = count / alignment * alignment
    }
}
