import Glibc
import NIOConcurrencyHelpers

/// An exclusive, non-blocking `flock` on a journal's database file, held until `release()` (or deinit).
///
/// flock and SQLite's own (fcntl) locks are independent on Linux, so the database file itself is locked.
/// POSIX drops every fcntl lock a process holds on a file when it closes any descriptor of that file,
/// SQLite's included; so a second lock on a file already locked in this process is refused before it
/// opens a descriptor, from a table of the files this process holds, rather than by flock.
final class JournalLock: Sendable {
    /// The locked file.
    let path: String
    /// The descriptor holding the lock, nil once released.
    private let descriptor: NIOLockedValueBox<Int32?>
    /// The file's identity, its entry in `held`.
    private let identity: FileIdentity

    /// A file by device and inode.
    private struct FileIdentity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    /// The files locked by this process.
    private static let held = NIOLockedValueBox(Set<FileIdentity>())

    /// Opens `path` (creating it, mode 0600, when absent; not its folder) and locks it.
    /// Throws a `JournalLockError`, `isContended` when another process or another lock in this one has it.
    init(path: String) throws {
        self.path = path
        let (fd, identity) = try Self.held.withLockedValue { held throws -> (Int32, FileIdentity) in
            var existing = stat()
            if stat(path, &existing) == 0, held.contains(Self.identity(of: existing)) {
                throw JournalLockError(operation: "flock", errno: EWOULDBLOCK, detail: "already open in this process")
            }
            let fd = Self.retryingEINTR { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
            guard fd >= 0 else { throw JournalLockError(operation: "open", errno: errno) }
            guard Self.retryingEINTR({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 else {
                let error = JournalLockError(operation: "flock", errno: errno)
                close(fd)
                throw error
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let error = JournalLockError(operation: "fstat", errno: errno)
                close(fd)
                throw error
            }
            let identity = Self.identity(of: info)
            held.insert(identity)
            return (fd, identity)
        }
        self.descriptor = NIOLockedValueBox(fd)
        self.identity = identity
    }

    /// Unlocks and closes the file; idempotent. Call it only once nothing else (SQLite) has the file open
    /// in this process: closing the descriptor drops that process's fcntl locks on the file.
    func release() {
        let fd: Int32? = descriptor.withLockedValue { fd in
            defer { fd = nil }
            return fd
        }
        guard let fd else { return }
        Self.held.withLockedValue { held in
            // close releases the flock; EINTR from close still closes the descriptor on Linux.
            close(fd)
            held.remove(identity)
        }
    }

    deinit {
        release()
    }

    private static func identity(of info: stat) -> FileIdentity {
        FileIdentity(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
    }

    /// Runs a system call until it does not fail with EINTR.
    private static func retryingEINTR(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }
}
