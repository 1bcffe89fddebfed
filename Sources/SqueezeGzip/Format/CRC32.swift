import CISAL
import CSqueezeCRC
import CZlib

/// CRC-32 (the gzip polynomial), by carry-less multiplication: 256 bits at a time where the
/// CPU has AVX2 and VPCLMULQDQ (`CSqueezeCRC`, about twice ISA-L's rate on data in cache),
/// otherwise ISA-L's 128-bit folding (about 3× zlib's here); combined with zlib's
/// `crc32_combine`.
public enum CRC32 {
    /// Whether `CSqueezeCRC`'s 256-bit folding runs on this machine (checked once).
    public static let folds256 = squeeze_crc32_fold_available() != 0

    /// The CRC-32 of the bytes, continuing from `seed` (0 for a fresh checksum).
    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        let start = base.assumingMemoryBound(to: UInt8.self)
        guard folds256, bytes.count >= Int(SQUEEZE_CRC32_FOLD_MINIMUM) else { return isal(seed, start, bytes.count) }
        return fold256(seed, start, bytes.count)
    }

    /// The CRC-32 of the bytes, continuing from `seed` (0 for a fresh checksum).
    public static func checksum(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, seed: seed) }
    }

    /// ISA-L's checksum alone, whatever the CPU (for tests that hold the two against each
    /// other, and for short inputs).
    public static func checksumISAL(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        return isal(seed, base.assumingMemoryBound(to: UInt8.self), bytes.count)
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

    private static func isal(_ seed: UInt32, _ start: UnsafePointer<UInt8>, _ count: Int) -> UInt32 {
        // The length is 64-bit, so buffers over 4 GiB need no chunking.
        crc32_gzip_refl(seed, start, UInt64(count))
    }

    /// Folds all but the last few bytes into 16 whose remainder is the same, then finishes
    /// those and the rest with ISA-L: the CRC-32 of the state from seed 0xFFFFFFFF (no
    /// initial complement) continues exactly where the folding stopped.
    private static func fold256(_ seed: UInt32, _ start: UnsafePointer<UInt8>, _ count: Int) -> UInt32 {
        var state: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &state) { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes -> UInt32 in
                guard let stateBytes = bytes.baseAddress else { return isal(seed, start, count) }
                let folded = squeeze_crc32_fold(seed, start, count, stateBytes)
                let crc = isal(0xFFFF_FFFF, stateBytes, 16)
                return folded < count ? isal(crc, start + folded, count - folded) : crc
            }
        }
    }
}
