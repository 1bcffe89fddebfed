/// How long a file written from the start is, and its last eight bytes (a gzip trailer), as its
/// writer appended them: what `AtomicOutputFile.sealedFacts` needs without reading the file back.
/// Bytes the writer did not see (a piece the kernel copied) or wrote over in place make the end
/// unknown until eight more are appended.
struct WrittenTail: Sendable, Equatable {
    /// Bytes in the file.
    private(set) var size: UInt64 = 0
    /// The last (up to) eight bytes appended, the latest highest.
    private var last: UInt64 = 0
    /// How many of the file's last bytes `last` holds for certain (at most eight).
    private var seen = 0

    /// After `bytes` were appended.
    mutating func appended(_ bytes: UnsafeRawBufferPointer) {
        size += UInt64(bytes.count)
        if bytes.count >= 8 {
            last = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
        } else {
            for byte in bytes { last = last >> 8 | UInt64(byte) << 56 }
        }
        seen = min(8, seen + bytes.count)
    }

    /// After `count` bytes were appended that the writer did not see.
    mutating func appendedUnseen(_ count: UInt64) {
        size += count
        if count > 0 { seen = 0 }
    }

    /// After `count` bytes were written over what the file held at `offset` (`pwrite`).
    mutating func overwrote(at offset: UInt64, count: Int) {
        guard count > 0 else { return }
        let (end, overflow) = offset.addingReportingOverflow(UInt64(count))
        if overflow || end > (size >= 8 ? size - 8 : 0) { seen = 0 }
        if !overflow { size = max(size, end) }
    }

    /// The trailer's CRC-32 (the first four of the last eight bytes, little-endian), when the
    /// file's last eight bytes are known.
    var trailerCRC: UInt32? {
        guard seen == 8 else { return nil }
        return UInt32(truncatingIfNeeded: last)
    }
}
