import Glibc

/// Reads ranges of a source file and proves the file did not change while it was read.
/// Blocking: run on a `BlockingIOPool` thread.
public enum SourceReader {
    /// Reads `range` of the file at `path`, which the scan stamped as `expected`. Opens without
    /// following symlinks and without blocking on FIFOs; after the read, `fstat` must still match
    /// `expected` (device aside unless `comparingDevice`), or the read fails naming what changed.
    public static func read(_ path: BytePath, expected: FileStamp, range: Range<UInt64>, comparingDevice: Bool = true) throws -> [UInt8] {
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
        let count = Int(range.upperBound - range.lowerBound)
        var failure: FileSystemError?
        // Uninitialised storage: pread fills it, so zero-filling first would be wasted work.
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            var filled = 0
            while filled < count {
                let got = pread(fd, raw.baseAddress.unsafelyUnwrapped + filled, count - filled, off_t(range.lowerBound) + off_t(filled))
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = FileSystemError.last("read", path.display)
                    break
                }
                if got == 0 { break }
                filled += got
            }
            initialized = filled
        }
        if let failure { throw failure }
        let filled = buffer.count
        var after = stat()
        guard fstat(fd, &after) == 0 else { throw FileSystemError.last("fstat", path.display) }
        if let change = expected.change(to: FileStamp(after), comparingDevice: comparingDevice) {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: change)
        }
        if filled < count {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: "file shrank while it was read (short read at offset \(range.lowerBound + UInt64(filled)))")
        }
        return buffer
    }
}
