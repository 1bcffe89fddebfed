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

    /// Writes all of `bytes` to `fd` at `offset` (`pwrite`, the file position left alone),
    /// continuing short writes. `name` names the target in errors.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64, name: String) throws {
        guard let base = bytes.baseAddress else { return }
        guard offset <= UInt64(Int64.max) - UInt64(bytes.count) else { throw FileSystemError(operation: "write", path: name, errno: EOVERFLOW) }
        var done = 0
        while done < bytes.count {
            let wrote = retryingEINTR { pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done)) }
            guard wrote > 0 else {
                throw wrote == 0 ? FileSystemError(operation: "write", path: name, errno: EIO, detail: "pwrite: wrote nothing") : FileSystemError.last("write", name)
            }
            done += wrote
        }
    }

    /// Where the next write to `fd` lands when `fd` is a regular file that can be written at an
    /// offset again (not opened to append); nil for a pipe, a terminal, a socket or such.
    public static func rewritablePosition(_ fd: Int32) -> UInt64? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, flags & O_APPEND == 0 else { return nil }
        let position = lseek(fd, 0, SEEK_CUR)
        return position >= 0 ? UInt64(position) : nil
    }

    /// Fills `buffer` from `offset` of `fd` (`pread`, less only at the end of the file); how
    /// many bytes it read. `name` names the file in errors.
    public static func read(_ fd: Int32, at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer, name: String) throws -> Int {
        guard let base = buffer.baseAddress, offset <= UInt64(Int64.max) - UInt64(buffer.count) else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let got = retryingEINTR { pread(fd, base + filled, buffer.count - filled, off_t(offset) + off_t(filled)) }
            guard got >= 0 else { throw FileSystemError.last("read", name) }
            if got == 0 { break }
            filled += got
        }
        return filled
    }
}
