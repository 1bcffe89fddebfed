import Glibc

/// Reads back what a shared-storage worker wrote (a piece, or a block's range of a placed
/// output) so it can be checked before it is published. Blocking: run on a pool thread.
public enum PieceReader {
    /// Reads exactly `count` bytes at `offset` of the file at `path` (not following a
    /// symlink). A file that ends sooner fails with a detail saying so; other failures carry
    /// the call and errno.
    public static func read(_ path: BytePath, offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= UInt64(Int64.max) - UInt64(count) else {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: "range \(offset)+\(count) out of bounds")
        }
        let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        defer { close(fd) }
        var failure: FileSystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var filled = 0
            while filled < count, let base = buffer.baseAddress {
                let got = pread(fd, base + filled, count - filled, off_t(offset) + off_t(filled))
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = FileSystemError.last("read", path.display)
                    break
                }
                if got == 0 {
                    failure = FileSystemError(operation: "read", path: path.display, errno: 0,
                                              detail: "ends at \(offset + UInt64(filled)), \(count) bytes from \(offset) expected")
                    break
                }
                filled += got
            }
            initialized = filled
        }
        if let failure { throw failure }
        return bytes
    }
}
