import Glibc

/// Reads a whole file front to back in chunks of a fixed size, handing each to a closure, so a
/// file of any size is read in constant memory (`squeeze test`). Blocking: on a pool thread.
public enum ChunkReader {
    /// Reads the regular file at `path` (not following a symlink) in chunks of `chunkSize` bytes
    /// (the last may be shorter) and hands each to `body`; returns the bytes read. Failures carry
    /// the call and errno; an error `body` throws ends the read and is rethrown.
    @discardableResult
    public static func read(_ path: BytePath, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> UInt64 {
        let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError.last("fstat", path.display) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FileSystemError(operation: "open", path: path.display, errno: 0, detail: "not a regular file")
        }
        return try FileDescriptorIO.readAll(fd, name: path.display, chunkSize: chunkSize, body)
    }
}
