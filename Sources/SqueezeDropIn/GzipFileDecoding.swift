import Glibc
import SqueezeGzip
import SqueezeIO

/// Decompresses one gzip file: a regular file on `threads` threads where its blocks allow
/// (`ParallelGzipDecoder`), anything else (a FIFO, a device) as one stream. Blocking.
public enum GzipFileDecoding {
    /// Decompresses every member of `path` into `sink`, in order; the compressed and
    /// uncompressed lengths.
    /// - Throws: `FileSystemError`, `ZlibError` (corrupt, truncated, trailing garbage), or
    ///   what `sink` throws.
    public static func decompress(_ path: BytePath, threads: Int, into sink: (UnsafeRawBufferPointer) throws -> Void) throws -> (compressed: UInt64, uncompressed: UInt64) {
        let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError.last("fstat", path.display) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_size >= 0 else {
            let decoder = try GzipStreamDecoder(multipleMembers: true)
            let read = try ChunkReader.read(path) { try decoder.feed($0, to: sink) }
            try decoder.finish()
            return (read, decoder.uncompressedBytes)
        }
        let size = UInt64(info.st_size)
        let display = path.display
        let tally = try ParallelGzipDecoder(threads: threads).decompress(size: size, read: { offset, buffer in
            try readRange(fd, offset: offset, into: buffer, name: display)
        }, into: sink)
        return (size, tally.uncompressed)
    }

    /// Fills `buffer` from `offset` (less only at the end of the file); how many bytes it read.
    private static func readRange(_ fd: Int32, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer, name: String) throws -> Int {
        guard let base = buffer.baseAddress, offset <= UInt64(Int64.max) else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let got = FileDescriptorIO.retryingEINTR { pread(fd, base + filled, buffer.count - filled, off_t(offset) + off_t(filled)) }
            guard got >= 0 else { throw FileSystemError.last("read", name) }
            if got == 0 { break }
            filled += got
        }
        return filled
    }
}
