import CSqueezeSystem
import Glibc

/// Copies a whole file into another at an offset inside the kernel (`copy_file_range`;
/// extents are shared where the file system can), falling back to read and write where the
/// kernel cannot. Blocking.
enum RangeCopier {
    /// Copies `length` bytes of `source` from `start` to `destination` at `offset`. A whole
    /// piece (`start` nil) must hold exactly `length` bytes; a range must lie inside the
    /// source. `path` names the output in errors.
    static func copy(from source: Int32, start: UInt64? = nil, length: UInt64, to destination: Int32, at offset: UInt64, path: String) throws {
        var info = stat()
        guard fstat(source, &info) == 0 else { throw FileSystemError.last("stat piece", path) }
        let size = UInt64(max(0, info.st_size))
        let fits = start.map { $0 <= size && length <= size - $0 } ?? (size == length)
        guard info.st_mode & S_IFMT == S_IFREG, fits else {
            throw FileSystemError(operation: "append piece", path: path, errno: 0,
                                  detail: "the worker's piece is \(info.st_size) bytes, it reported \(length) from \(start ?? 0)")
        }
        let from = start ?? 0
        var done: UInt64 = 0
        var kernelCopies = true
        while done < length {
            if kernelCopies {
                let copied = squeeze_copy_file_range(source, Int64(from + done), destination, Int64(offset + done), UInt(length - done))
                if copied > 0 {
                    done += UInt64(copied)
                    continue
                }
                if copied < 0 && errno == EINTR { continue }
                if copied < 0 && [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP].contains(errno) {
                    kernelCopies = false
                    continue
                }
                if copied == 0 { throw FileSystemError(operation: "append piece", path: path, errno: 0, detail: "piece shrank") }
                throw FileSystemError.last("copy_file_range", path)
            }
            let chunk = try readFully(source, offset: from + done, count: Int(min(length - done, 1 << 20)), path: path)
            try chunk.withUnsafeBytes { raw in
                var written = 0
                while written < raw.count {
                    let wrote = pwrite(destination, raw.baseAddress.unsafelyUnwrapped + written, raw.count - written,
                                       off_t(offset + done) + off_t(written))
                    if wrote < 0 && errno == EINTR { continue }
                    guard wrote > 0 else { throw FileSystemError.last("write", path) }
                    written += wrote
                }
            }
            done += UInt64(chunk.count)
        }
    }

    private static func readFully(_ fd: Int32, offset: UInt64, count: Int, path: String) throws -> [UInt8] {
        var failure: FileSystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            var filled = 0
            while filled < count {
                let got = pread(fd, raw.baseAddress.unsafelyUnwrapped + filled, count - filled, off_t(offset) + off_t(filled))
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = FileSystemError.last("read piece", path) }
                if got <= 0 { break }
                filled += got
            }
            initialized = filled
        }
        if let failure { throw failure }
        guard bytes.count == count else { throw FileSystemError(operation: "read piece", path: path, errno: 0, detail: "piece shrank") }
        return bytes
    }
}
