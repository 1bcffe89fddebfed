import Glibc
import SqueezeGzip
import SqueezeIO

/// Decompresses one gzip file: a regular file on `threads` threads where its blocks allow
/// (`ParallelGzipDecoder`), anything else (a FIFO, a device) as one stream. Blocking.
public enum GzipFileDecoding {
    /// Decompresses every member of `path` into `sink`, in order; the compressed and
    /// uncompressed lengths. A member whose offset table is wrong is decoded right all the
    /// same, and `tableDefect` is told why the table is wrong (one line, without the path).
    /// - Throws: `FileSystemError`, `ZlibError` (corrupt, truncated, trailing garbage), or
    ///   what `sink` throws.
    public static func decompress(
        _ path: BytePath, threads: Int, tableDefect: (String) -> Void, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (compressed: UInt64, uncompressed: UInt64) {
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
            try FileDescriptorIO.read(fd, at: offset, into: buffer, name: display)
        }, into: sink)
        if let defect = tally.tableDefect { tableDefect("\(defect); decoded without it") }
        return (size, tally.uncompressed)
    }
}
