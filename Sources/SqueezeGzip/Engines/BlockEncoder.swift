/// One engine's way of compressing a block into raw deflate that can be concatenated with its
/// neighbours into one gzip member: primed with up to 32 KiB of the input before it, ending
/// byte-aligned and not final (`isLast == false`) or with the final block (`isLast == true`).
///
/// Not thread-safe: an encoder holds its library's stream state. One per compression slot.
protocol BlockEncoder: AnyObject {
    /// Compresses `block` into `output` from index 0, growing it when needed, and returns the
    /// number of bytes written. `dictionary` is at most 32 KiB.
    func encode(_ block: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, isLast: Bool,
                into output: inout [UInt8]) throws -> Int
}
