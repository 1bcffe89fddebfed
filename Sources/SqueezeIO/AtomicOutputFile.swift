import Glibc
import Synchronization

/// An output written under a temporary name in its destination folder, then fsynced and
/// renamed into place: the final path holds a complete file or nothing.
/// Blocking: every method runs on a `BlockingIOPool` thread; calls for one file are serialised
/// by its owner.
public final class AtomicOutputFile: Sendable {
    /// Every temporary starts with this, so a later run can find and remove leftovers.
    public static let temporaryPrefix = ".squeeze-tmp-"

    /// Where the file will appear.
    public let finalPath: BytePath
    /// Where it is written meanwhile.
    public let temporaryPath: BytePath
    private let descriptor: Mutex<Int32?>

    /// Creates the temporary (O_EXCL, mode 0600 until commit) next to `finalPath`.
    public init(finalPath: BytePath) throws {
        self.finalPath = finalPath
        let name = Self.temporaryPrefix + String(UInt64.random(in: 1...UInt64.max), radix: 16)
        temporaryPath = finalPath.parent.appending(Array(name.utf8))
        let fd = temporaryPath.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        guard fd >= 0 else { throw FileSystemError.last("create", finalPath.display) }
        descriptor = Mutex(fd)
    }

    deinit {
        discard()
    }

    private func fd(_ operation: String) throws -> Int32 {
        guard let fd = descriptor.withLock({ $0 }) else {
            throw FileSystemError(operation: operation, path: finalPath.display, errno: EBADF)
        }
        return fd
    }

    /// Appends `chunks` with as few `writev` calls as the kernel allows.
    public func write(_ chunks: [[UInt8]]) throws {
        let fd = try fd("write")
        for chunk in chunks {
            try chunk.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let wrote = Glibc.write(fd, raw.baseAddress.unsafelyUnwrapped + offset, raw.count - offset)
                    if wrote < 0 {
                        if errno == EINTR { continue }
                        throw FileSystemError.last("write", finalPath.display)
                    }
                    offset += wrote
                }
            }
        }
    }

    /// Sets permissions and mtime like gzip, fsyncs, closes and renames into place. Without
    /// `replace`, an output that appeared meanwhile is not overwritten.
    public func commit(permissions: UInt32, modifiedSeconds: Int64, modifiedNanoseconds: Int64, replace: Bool) throws {
        let fd = try fd("commit")
        guard fchmod(fd, mode_t(permissions & 0o777)) == 0 else { throw FileSystemError.last("chmod", finalPath.display) }
        var times = [
            timespec(tv_sec: time_t(modifiedSeconds), tv_nsec: Int(modifiedNanoseconds)),
            timespec(tv_sec: time_t(modifiedSeconds), tv_nsec: Int(modifiedNanoseconds)),
        ]
        guard futimens(fd, &times) == 0 else { throw FileSystemError.last("utimens", finalPath.display) }
        guard fsync(fd) == 0 else { throw FileSystemError.last("fsync", finalPath.display) }
        descriptor.withLock { $0 = nil }
        // From here the descriptor is gone, so failures must remove the temporary themselves.
        guard close(fd) == 0 else { throw removingTemporary(FileSystemError.last("close", finalPath.display)) }
        if !replace && Directories.exists(finalPath) {
            throw removingTemporary(FileSystemError(
                operation: "rename", path: finalPath.display, errno: EEXIST,
                detail: "output already exists (use --force to replace it)"))
        }
        let renamed = temporaryPath.withCString { from in finalPath.withCString { to in rename(from, to) } }
        guard renamed == 0 else { throw removingTemporary(FileSystemError.last("rename", finalPath.display)) }
    }

    private func removingTemporary(_ error: FileSystemError) -> FileSystemError {
        _ = temporaryPath.withCString { unlink($0) }
        return error
    }

    /// Closes and removes the temporary if it was not committed; idempotent.
    public func discard() {
        guard let fd = descriptor.withLock({ value -> Int32? in defer { value = nil }; return value }) else { return }
        close(fd)
        _ = temporaryPath.withCString { unlink($0) }
    }
}
