import Glibc

/// Reading and writing whole streams on a descriptor, with EINTR retried and short writes
/// continued in one place. Blocking: on a thread the project owns.
public enum FileDescriptorIO {
    /// Runs a call until it does not fail with EINTR; its last result.
    @inlinable
    public static func retryingEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Reads `fd` to its end in chunks of up to `chunkSize` bytes, handing each to `body`;
    /// returns the bytes read. `name` is the path for the error of a failed read.
    @discardableResult
    public static func readAll(_ fd: Int32, name: String, chunkSize: Int = 1 << 20,
                               _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> UInt64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 1), alignment: 64)
        defer { buffer.deallocate() }
        var total: UInt64 = 0
        while let base = buffer.baseAddress {
            let got = retryingEINTR { Glibc.read(fd, base, buffer.count) }
            guard got >= 0 else { throw FileSystemError.last("read", name) }
            if got == 0 { return total }
            total += UInt64(got)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
        }
        return total
    }

    /// Writes all of `bytes` to `fd`, continuing short writes. `name` names the target in errors.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, name: String) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let wrote = retryingEINTR { Glibc.write(fd, base + offset, bytes.count - offset) }
            guard wrote > 0 else {
                throw wrote == 0 ? FileSystemError(operation: "write", path: name, errno: EIO, detail: "write: wrote nothing") : FileSystemError.last("write", name)
            }
            offset += wrote
        }
    }
}
