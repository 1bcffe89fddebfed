import Glibc

/// Writes a shared-storage worker's piece: a new file (never an existing one, never through a
/// symlink) in a job's workspace. Blocking: run on a `BlockingIOPool` thread.
public enum PieceFile {
    /// Creates `path` with `chunks` as its content. A whole member gets its source's
    /// permissions and mtime, like any output; `sync` fsyncs it before returning (a worker on
    /// another kernel than the coordinator's). A failure removes what was written.
    public static func write(_ path: BytePath, chunks: [[UInt8]], member stamp: FileStamp?, sync: Bool) throws {
        // O_EXCL: a piece name is never reused, so an existing file is someone else's.
        let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw FileSystemError.last("create piece", path.display) }
        do {
            for chunk in chunks {
                try chunk.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let wrote = Glibc.write(fd, raw.baseAddress.unsafelyUnwrapped + offset, raw.count - offset)
                        if wrote < 0 && errno == EINTR { continue }
                        guard wrote > 0 else { throw FileSystemError.last("write piece", path.display) }
                        offset += wrote
                    }
                }
            }
            if let stamp { try apply(stamp, to: fd, path: path) }
            if sync && fsync(fd) != 0 { throw FileSystemError.last("fsync piece", path.display) }
        } catch {
            close(fd)
            _ = path.withCString { unlink($0) }
            throw error
        }
        guard close(fd) == 0 else {
            let error = FileSystemError.last("close piece", path.display)
            _ = path.withCString { unlink($0) }
            throw error
        }
    }

    /// Writes `chunks`, one after the other, into the output at `path` from `offset` on: a
    /// block placed in a file's output (every block's offset is known in advance). The first
    /// block to arrive creates the file; it is never truncated, never reached through a
    /// symlink. `sync` fsyncs before returning. One `pwritev` per 1,024 chunks.
    public static func place(_ path: BytePath, at offset: UInt64, chunks: [UnsafeRawBufferPointer], sync: Bool) throws {
        let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw FileSystemError.last("open output", path.display) }
        do {
            try place(fd, at: offset, chunks: chunks, path: path)
            if sync && fsync(fd) != 0 { throw FileSystemError.last("fsync output", path.display) }
        } catch {
            close(fd)
            throw error
        }
        // On NFS a failed write-back may first show here.
        guard close(fd) == 0 else { throw FileSystemError.last("close output", path.display) }
    }

    private static func place(_ fd: Int32, at offset: UInt64, chunks: [UnsafeRawBufferPointer], path: BytePath) throws {
        var vectors = chunks.compactMap { chunk in
            chunk.isEmpty ? nil : chunk.baseAddress.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0), iov_len: chunk.count) }
        }
        var at = offset
        var first = 0
        while first < vectors.count {
            let batch = min(vectors.count - first, 1024)
            let wrote = vectors.withUnsafeMutableBufferPointer { all in
                pwritev(fd, all.baseAddress.unsafelyUnwrapped + first, Int32(batch), off_t(at))
            }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { throw FileSystemError.last("write output", path.display) }
            at += UInt64(wrote)
            // A short write: skip what went out, trim the vector it stopped in.
            var left = wrote
            while left > 0, first < vectors.count {
                if left >= vectors[first].iov_len {
                    left -= vectors[first].iov_len
                    first += 1
                } else {
                    vectors[first].iov_base += left
                    vectors[first].iov_len -= left
                    left = 0
                }
            }
        }
    }

    /// Writes one segment of a stitched member at `path`: with a `header` (the first segment)
    /// it creates the file and writes the header; then it copies `pieces` (path and exact
    /// length each, in order) from `offset` on; with a `trailer` (the last segment) it writes
    /// the trailer, then a `finalHeader` at offset 0 over the first header (an offset table's
    /// lengths, known only at the end), gives the file `stamp`'s mode and mtime and, with
    /// `sync`, fsyncs it.
    /// Returns the end of what it wrote. The pieces are left in place; a failure removes the
    /// output, whose attempt is then abandoned.
    public static func stitch(
        _ path: BytePath, offset start: UInt64, header: [UInt8], pieces: [(BytePath, UInt64)], trailer: [UInt8],
        finalHeader: [UInt8] = [], member stamp: FileStamp, sync: Bool
    ) throws -> UInt64 {
        if !header.isEmpty { try write(path, chunks: [header], member: nil, sync: false) }
        let fd = path.withCString { open($0, O_WRONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        var offset = start
        do {
            for (piece, length) in pieces {
                let source = piece.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
                guard source >= 0 else { throw FileSystemError.last("open piece", piece.display) }
                defer { close(source) }
                try RangeCopier.copy(from: source, length: length, to: fd, at: offset, path: path.display)
                offset += length
            }
            if !trailer.isEmpty {
                try trailer.withUnsafeBytes { raw in
                    guard pwrite(fd, raw.baseAddress, raw.count, off_t(offset)) == raw.count else { throw FileSystemError.last("write", path.display) }
                }
                offset += UInt64(trailer.count)
                if !finalHeader.isEmpty {
                    try finalHeader.withUnsafeBytes { raw in
                        guard pwrite(fd, raw.baseAddress, raw.count, 0) == raw.count else { throw FileSystemError.last("write", path.display) }
                    }
                }
                try apply(stamp, to: fd, path: path)
                if sync && fsync(fd) != 0 { throw FileSystemError.last("fsync", path.display) }
            }
        } catch {
            close(fd)
            _ = path.withCString { unlink($0) }
            throw error
        }
        guard close(fd) == 0 else {
            let error = FileSystemError.last("close", path.display)
            _ = path.withCString { unlink($0) }
            throw error
        }
        return offset
    }

    /// Completes an output whose blocks were written in place up to `end`: writes `header` at
    /// its start and `trailer` at `end`, and gives it `stamp`'s mode and mtime. Blocking.
    public static func finishPlaced(_ path: BytePath, header: [UInt8], end: UInt64, trailer: [UInt8], member stamp: FileStamp) throws {
        let fd = path.withCString { open($0, O_WRONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
        do {
            for (bytes, at) in [(header, UInt64(0)), (trailer, end)] {
                let wrote = bytes.withUnsafeBytes { raw in pwrite(fd, raw.baseAddress, raw.count, off_t(at)) }
                guard wrote == bytes.count else { throw FileSystemError.last("write", path.display) }
            }
            try apply(stamp, to: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw FileSystemError.last("close", path.display) }
    }

    /// Gives a finished member its source's permission bits and mtime, as gzip does.
    private static func apply(_ stamp: FileStamp, to fd: Int32, path: BytePath) throws {
        guard fchmod(fd, mode_t(stamp.permissions & 0o777)) == 0 else { throw FileSystemError.last("chmod", path.display) }
        var times = [
            timespec(tv_sec: time_t(stamp.modifiedSeconds), tv_nsec: Int(stamp.modifiedNanoseconds)),
            timespec(tv_sec: time_t(stamp.modifiedSeconds), tv_nsec: Int(stamp.modifiedNanoseconds)),
        ]
        guard futimens(fd, &times) == 0 else { throw FileSystemError.last("utimens", path.display) }
    }
}
