/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit hash. A listing check's digest
/// (`ListingDigest`) is keyed with a secret the coordinator draws after the scanner's listing
/// is in, so a scanner cannot shape a listing whose digest matches another one, as it could
/// with a CRC, whose differences do not depend on any key.
///
/// Fed word by word: callers add whole values and length-prefixed byte strings, so the
/// encoding is unambiguous without a byte buffer.
public struct SipHash24: Sendable {
    private var v0: UInt64
    private var v1: UInt64
    private var v2: UInt64
    private var v3: UInt64
    /// Bytes waiting to fill a word, little-endian, and how many.
    private var tail: UInt64 = 0
    private var tailCount = 0
    private var length: UInt64 = 0

    /// A hasher keyed with `key0` (bytes 0–7 of the key, little-endian) and `key1` (8–15).
    public init(key0: UInt64, key1: UInt64) {
        v0 = key0 ^ 0x736f_6d65_7073_6575
        v1 = key1 ^ 0x646f_7261_6e64_6f6d
        v2 = key0 ^ 0x6c79_6765_6e65_7261
        v3 = key1 ^ 0x7465_6462_7974_6573
    }

    /// Adds `bytes`.
    public mutating func add<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { add(byte: byte) }
    }

    /// Adds one byte.
    public mutating func add(byte: UInt8) {
        tail |= UInt64(byte) << (8 * UInt64(tailCount))
        tailCount += 1
        length &+= 1
        if tailCount == 8 {
            compress(tail)
            tail = 0
            tailCount = 0
        }
    }

    /// Adds `bytes`' count as 8 bytes, then the bytes, then zeros to a whole word: a string
    /// that cannot run into what follows, taken 8 bytes at a time.
    public mutating func add(string bytes: [UInt8]) {
        add(UInt64(bytes.count))
        bytes.withUnsafeBytes { raw in
            var offset = 0
            if tailCount == 0 {
                while offset + 8 <= raw.count {
                    compress(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                    length &+= 8
                    offset += 8
                }
            }
            for byte in raw[offset...] { add(byte: byte) }
        }
        while tailCount != 0 { add(byte: 0) }
    }

    /// Adds `value` as 8 bytes, little-endian.
    public mutating func add(_ value: UInt64) {
        guard tailCount == 0 else {
            for shift in stride(from: UInt64(0), to: 64, by: 8) { add(byte: UInt8(truncatingIfNeeded: value >> shift)) }
            return
        }
        length &+= 8
        compress(value)
    }

    /// The hash of what was added.
    public func finalize() -> UInt64 {
        var state = self
        state.compress(state.tail | ((state.length & 0xff) << 56))
        state.v2 ^= 0xff
        for _ in 0..<4 { state.round() }
        return state.v0 ^ state.v1 ^ state.v2 ^ state.v3
    }

    private mutating func compress(_ word: UInt64) {
        v3 ^= word
        round()
        round()
        v0 ^= word
    }

    private mutating func round() {
        v0 &+= v1
        v1 = v1.rotatedLeft(13)
        v1 ^= v0
        v0 = v0.rotatedLeft(32)
        v2 &+= v3
        v3 = v3.rotatedLeft(16)
        v3 ^= v2
        v0 &+= v3
        v3 = v3.rotatedLeft(21)
        v3 ^= v0
        v2 &+= v1
        v1 = v1.rotatedLeft(17)
        v1 ^= v2
        v2 = v2.rotatedLeft(32)
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}
