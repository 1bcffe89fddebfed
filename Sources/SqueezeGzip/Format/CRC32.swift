import CISAL
import CZlib

/// CRC-32 (the gzip polynomial): computed by ISA-L's folding (carry-less multiply)
/// implementation, about 3× zlib's here; combined with zlib's `crc32_combine`.
public enum CRC32 {
    /// The CRC-32 of the bytes, continuing from `seed` (0 for a fresh checksum).
    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        // The length is 64-bit, so buffers over 4 GiB need no chunking.
        return crc32_gzip_refl(seed, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The CRC-32 of the bytes, continuing from `seed` (0 for a fresh checksum).
    public static func checksum(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, seed: seed) }
    }

    /// The CRC-32 of A followed by B, given `first` = crc(A), `second` = crc(B) and B's length.
    ///
    /// Uses `crc32_combine`: `crc32_combine64` is only declared under large-file macros the
    /// Swift importer does not set, and on 64-bit Unix `z_off_t` (off_t or long) is 64-bit anyway.
    public static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int64) -> UInt32 {
        // z_off_t is a C macro, invisible to Swift; `.init` converts to whatever it imports as.
        let crc = crc32_combine(uLong(first), uLong(second), .init(secondLength))
        return UInt32(truncatingIfNeeded: crc)
    }
}
