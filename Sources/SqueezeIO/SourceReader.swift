import CSqueezeSystem
import Glibc

/// Reads ranges of a source file and proves the file did not change while it was read.
/// Blocking: run on a `BlockingIOPool` thread.
public enum SourceReader {
    /// Reads `range` of the file at `path`, which the scan stamped as `expected`. Opens without
    /// following symlinks and without blocking on FIFOs; after the read, `fstat` must still match
    /// `expected` in what `match` compares, or the read fails naming what changed.
    public static func read(_ path: BytePath, expected: FileStamp, range: Range<UInt64>, matching match: StampMatch = .exact) throws -> [UInt8] {
        let count = Int(range.upperBound - range.lowerBound)
        guard count > 0 else {
            // Still opened and checked. Not through `unsafeUninitializedCapacity`: for no bytes
            // it writes the count into the empty array every thread shares, which Thread
            // Sanitizer reports as a race between two readers of empty files.
            try read(path, expected: expected, range: range, into: UnsafeMutableRawBufferPointer(start: nil, count: 0), matching: match)
            return []
        }
        var failure: (any Error)?
        // Uninitialised storage: pread fills it, so zero-filling first would be wasted work.
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            do {
                try read(path, expected: expected, range: range, into: UnsafeMutableRawBufferPointer(raw), matching: match)
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
    /// length, with one `pread` (more only after a short read, or for the partial last page
    /// of a direct read), checking the file against `expected` before and after as `read`
    /// does. With `direct`, the whole pages of a read
    /// that `DirectReadSpan` admits bypass the page cache (`O_DIRECT`); where the file system
    /// refuses that, they are read through it as usual. On failure the buffer's contents are
    /// unspecified.
    public static func read(
        _ path: BytePath, expected: FileStamp, range: Range<UInt64>, into buffer: UnsafeMutableRawBufferPointer,
        matching match: StampMatch = .exact, direct: Bool = false
    ) throws {
        let count = Int(range.upperBound - range.lowerBound)
        precondition(buffer.count == count, "buffer of \(buffer.count) bytes for a read of \(count)")
        var directBytes = 0
        if direct, let base = buffer.baseAddress {
            directBytes = DirectReadSpan(fileOffset: range.lowerBound, count: count, address: UInt(bitPattern: base)).directBytes
        }
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
        var fd = path.withCString { open($0, flags | (directBytes > 0 ? squeeze_o_direct() : 0)) }
        if fd < 0, directBytes > 0, errno == EINVAL {
            // The file system takes no direct reads (tmpfs before Linux 6.6): through the page cache.
            directBytes = 0
            fd = path.withCString { open($0, flags) }
        }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        defer { close(fd) }
        try verify(fd, path: path, expected: expected, matching: match, checkingType: true)
        var filled = 0
        if directBytes > 0, let base = buffer.baseAddress {
            filled = try readDirect(fd, into: base, count: directBytes, at: range.lowerBound, path: path)
            // The rest (a last partial page, or all of it where direct reads were refused) goes
            // through the page cache, which takes any offset and length.
            if filled < count, squeeze_set_direct(fd, 0) != 0 { throw FileSystemError.last("fcntl", path.display) }
        }
        while filled < count, let base = buffer.baseAddress {
            let got = FileDescriptorIO.retryingEINTR { pread(fd, base + filled, count - filled, off_t(range.lowerBound) + off_t(filled)) }
            guard got >= 0 else { throw FileSystemError.last("read", path.display) }
            if got == 0 { break }
            filled += got
        }
        try verify(fd, path: path, expected: expected, matching: match, checkingType: false)
        if filled < count {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: "file shrank while it was read (short read at offset \(range.lowerBound + UInt64(filled)))")
        }
    }

    /// Reads up to `count` bytes (whole pages) at `offset` on a descriptor opened `O_DIRECT`;
    /// returns how many it read. Stops early at the end of the file, and where the file system
    /// refuses the direct read after all (EINVAL: its alignment is stricter than a page), so the
    /// caller reads the rest through the page cache.
    private static func readDirect(_ fd: Int32, into base: UnsafeMutableRawPointer, count: Int, at offset: UInt64, path: BytePath) throws -> Int {
        var filled = 0
        while filled < count {
            let got = FileDescriptorIO.retryingEINTR { pread(fd, base + filled, count - filled, off_t(offset) + off_t(filled)) }
            if got < 0 {
                if errno == EINVAL { break }
                throw FileSystemError.last("read", path.display)
            }
            filled += got
            // A short read ends the file (or leaves an unaligned offset): the buffered reads tell which.
            if got == 0 || got % DirectReadSpan.alignment != 0 { break }
        }
        return filled
    }

    /// Checks an open file against the scan's stamp (and, when opening, that it is a regular file).
    private static func verify(_ fd: Int32, path: BytePath, expected: FileStamp, matching match: StampMatch, checkingType: Bool) throws {
        var now = stat()
        guard fstat(fd, &now) == 0 else { throw FileSystemError.last("fstat", path.display) }
        if checkingType, now.st_mode & S_IFMT != S_IFREG {
            throw FileSystemError(operation: "open", path: path.display, errno: 0, detail: "is no longer a regular file")
        }
        if let change = expected.change(to: FileStamp(now), matching: match) {
            throw FileSystemError(operation: "read", path: path.display, errno: 0, detail: change)
        }
    }
}
