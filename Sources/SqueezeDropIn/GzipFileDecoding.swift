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
        try run(path, with: ParallelGzipDecoder(threads: threads), tableDefect: tableDefect, into: sink)
    }

    /// Checks `path` as `gzip -t` does (zlib: only what every gzip tool reads; with
    /// `multipleMembers`, members may follow the first and zero padding the last), on
    /// `threads` threads where its blocks allow; the compressed and uncompressed lengths.
    /// - Throws: as `decompress`.
    public static func check(
        _ path: BytePath, threads: Int, multipleMembers: Bool, tableDefect: (String) -> Void
    ) throws -> (compressed: UInt64, uncompressed: UInt64) {
        try run(path, with: ParallelGzipDecoder(threads: threads, strict: true, multipleMembers: multipleMembers), tableDefect: tableDefect) { _ in }
    }

    private static func run(
        _ path: BytePath, with decoder: ParallelGzipDecoder, tableDefect: (String) -> Void, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (compressed: UInt64, uncompressed: UInt64) {
        let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError.last("fstat", path.display) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_size >= 0 else {
            let stream = try GzipStreamDecoder(multipleMembers: decoder.multipleMembers, strict: decoder.strict)
            let read = try ChunkReader.read(path) { try stream.feed($0, to: sink) }
            try stream.finish()
            return (read, stream.uncompressedBytes)
        }
        let size = UInt64(info.st_size)
        let display = path.display
        let tally = try decoder.decompress(size: size, read: { offset, buffer in
            try FileDescriptorIO.read(fd, at: offset, into: buffer, name: display)
        }, into: sink)
        if let defect = tally.tableDefect { tableDefect("\(defect); decoded without it") }
        return (size, tally.uncompressed)
    }
}
