import Glibc

/// Reads back what a shared-storage worker wrote (a piece, a block's range of a placed
/// output, a stitched segment) so it can be checked before it is published. Blocking: run on
/// a pool thread.
public enum PieceReader {
    /// Reads exactly `count` bytes at `offset` of the file at `path` (not following a
    /// symlink). A file that ends sooner fails with a detail saying so; other failures carry
    /// the call and errno.
    public static func read(_ path: BytePath, offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0 else {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: "range \(offset)+\(count) out of bounds")
        }
        let fd = try open(path, offset: offset, count: UInt64(count))
        defer { close(fd) }
        // No `unsafeUninitializedCapacity` for no bytes (see `SourceReader.read`).
        guard count > 0 else { return [] }
        var failure: FileSystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(FileSystemError) {
                initialized = try fill(UnsafeMutableRawBufferPointer(buffer), from: fd, at: offset, path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Reads exactly `count` bytes at `offset` of the file at `path` in chunks of at most
    /// `chunkSize`, handing each to `body` in order: a long range (a stitched segment) is
    /// checked without holding it in memory. Fails like `read`.
    public static func forEachChunk(
        _ path: BytePath, offset: UInt64, count: UInt64, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws {
        let fd = try open(path, offset: offset, count: count)
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunkSize), alignment: 16)
        defer { buffer.deallocate() }
        var done: UInt64 = 0
        while done < count {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(UInt64(buffer.count), count - done))])
            _ = try fill(chunk, from: fd, at: offset + done, path: path)
            body(UnsafeRawBufferPointer(chunk))
            done += UInt64(chunk.count)
        }
    }

    /// Opens `path` for reading `count` bytes at `offset`, refusing a range past what a file can hold.
    private static func open(_ path: BytePath, offset: UInt64, count: UInt64) throws(FileSystemError) -> Int32 {
        guard offset <= UInt64(Int64.max), count <= UInt64(Int64.max) - offset else {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: "range \(offset)+\(count) out of bounds")
        }
        let fd = path.withCString { Glibc.open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        return fd
    }

    /// Fills `buffer` from `offset` of `fd`, retrying EINTR; a file that ends sooner fails.
    /// Returns the bytes filled (all of them unless it throws).
    private static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, from fd: Int32, at offset: UInt64, path: BytePath
    ) throws(FileSystemError) -> Int {
        var filled = 0
        while filled < buffer.count, let base = buffer.baseAddress {
            let got = pread(fd, base + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if got < 0 {
                if errno == EINTR { continue }
                throw FileSystemError.last("read", path.display)
            }
            if got == 0 {
                throw FileSystemError(operation: "read", path: path.display, errno: 0,
                                      detail: "ends at \(offset + UInt64(filled)), \(buffer.count) bytes from \(offset) expected")
            }
            filled += got
        }
        return filled
    }
}
