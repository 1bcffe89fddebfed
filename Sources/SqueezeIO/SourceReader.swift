import Glibc

/// Reads ranges of a source file and proves the file did not change while it was read.
/// Blocking: run on a `BlockingIOPool` thread.
public enum SourceReader {
    /// Reads `range` of the file at `path`, which the scan stamped as `expected`. Opens without
    /// following symlinks and without blocking on FIFOs; after the read, `fstat` must still match
    /// `expected` (device aside unless `comparingDevice`), or the read fails naming what changed.
    public static func read(_ path: BytePath, expected: FileStamp, range: Range<UInt64>, comparingDevice: Bool = true) throws -> [UInt8] {
        let count = Int(range.upperBound - range.lowerBound)
        var failure: (any Error)?
        // Uninitialised storage: pread fills it, so zero-filling first would be wasted work.
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            do {
                try read(path, expected: expected, range: range, into: UnsafeMutableRawBufferPointer(raw), comparingDevice: comparingDevice)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return buffer
    }

    /// Reads `range` of the file at `path` into `buffer`, which must be exactly the range's
    /// length, with one `pread` (more only after a short read), checking the file against
    /// `expected` before and after as `read` does. On failure the buffer's contents are
    /// unspecified.
    public static func read(
        _ path: BytePath, expected: FileStamp, range: Range<UInt64>, into buffer: UnsafeMutableRawBufferPointer,
        comparingDevice: Bool = true
    ) throws {
        let count = Int(range.upperBound - range.lowerBound)
        precondition(buffer.count == count, "buffer of \(buffer.count) bytes for a read of \(count)")
        let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw FileSystemError.last("fstat", path.display) }
        guard before.st_mode & S_IFMT == S_IFREG else {
            throw FileSystemError(operation: "open", path: path.display, errno: 0, detail: "is no longer a regular file")
        }
        if let change = expected.change(to: FileStamp(before), comparingDevice: comparingDevice) {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: change)
        }
        var filled = 0
        while filled < count, let base = buffer.baseAddress {
            let got = pread(fd, base + filled, count - filled, off_t(range.lowerBound) + off_t(filled))
            if got < 0 {
                if errno == EINTR { continue }
                throw FileSystemError.last("read", path.display)
            }
            if got == 0 { break }
            filled += got
        }
        var after = stat()
        guard fstat(fd, &after) == 0 else { throw FileSystemError.last("fstat", path.display) }
        if let change = expected.change(to: FileStamp(after), comparingDevice: comparingDevice) {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: change)
        }
        if filled < count {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: "file shrank while it was read (short read at offset \(range.lowerBound + UInt64(filled)))")
        }
    }
}
