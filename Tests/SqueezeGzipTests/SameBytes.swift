import Glibc

/// Byte equality through `memcmp`. In a debug build `==` on two arrays compares them element by
/// element through generic witnesses, which made it most of a suite's time on large outputs.
func sameBytes(_ lhs: [UInt8]?, _ rhs: [UInt8]?) -> Bool {
    guard let lhs, let rhs else { return lhs == nil && rhs == nil }
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in
            guard let a = left.baseAddress, let b = right.baseAddress else { return true }
            return memcmp(a, b, left.count) == 0
        }
    }
}
