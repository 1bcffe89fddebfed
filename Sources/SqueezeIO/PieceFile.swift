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

    /// Writes one segment of a stitched member at `path`: with a `header` (the first segment)
    /// it creates the file and writes the header; then it copies `pieces` (path and exact
    /// length each, in order) from `offset` on; with a `trailer` (the last segment) it writes
    /// the trailer, gives the file `stamp`'s mode and mtime and, with `sync`, fsyncs it.
    /// Returns the end of what it wrote. The pieces are left in place; a failure removes the
    /// output, whose attempt is then abandoned.
    public static func stitch(
        _ path: BytePath, offset start: UInt64, header: [UInt8], pieces: [(BytePath, UInt64)], trailer: [UInt8],
        member stamp: FileStamp, sync: Bool
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
