import Glibc
import NIOConcurrencyHelpers

/// A job's private folder in its destination: the temporaries of its outputs and the pieces
/// shared-storage workers write. Everything a job leaves on disk before publishing lives here,
/// so ending a job removes exactly its own files, and nothing a late (fenced) worker writes
/// survives it: workers never create folders, so once this one is gone their writes fail.
///
/// While the job runs its coordinator holds an exclusive `flock` on the `owner` file; a folder
/// is stale, and may be removed by a later job, only when it carries the owner marker and
/// that lock is free. Blocking: use from a `BlockingIOPool` thread.
public final class JobWorkspace: Sendable {
    /// Every workspace's name starts with this (the temporaries' prefix, so one search finds
    /// anything a job left behind).
    public static let prefix = ".squeeze-tmp-job-"
    /// The first bytes of the owner file; a folder without them is not ours, whatever its name.
    static let marker = Array("squeeze job workspace\n".utf8)
    static let ownerName = Array("owner".utf8)
    /// The probe file's name in a workspace.
    public static let probeName = Array("probe".utf8)

    /// The folder.
    public let path: BytePath
    /// A random token, also written to the `probe` file: a worker that reads it back at this
    /// path sees the coordinator's files.
    public let token: String
    private let lock: NIOLockedValueBox<Int32?>

    /// Creates a fresh workspace (mode 0700) directly under `destination` and locks it.
    public init(in destination: BytePath) throws {
        token = String(UInt64.random(in: 1...UInt64.max), radix: 16) + String(UInt64.random(in: 1...UInt64.max), radix: 16)
        path = destination.appending(Array((Self.prefix + String(UInt64.random(in: 1...UInt64.max), radix: 16)).utf8))
        guard path.withCString({ mkdir($0, 0o700) }) == 0 else { throw FileSystemError.last("mkdir", path.display) }
        do {
            let owner = try Self.create(path.appending(Self.ownerName), contents: Self.marker + Array(token.utf8))
            guard flock(owner, LOCK_EX | LOCK_NB) == 0 else {
                let error = FileSystemError.last("flock", path.display)
                close(owner)
                throw error
            }
            lock = NIOLockedValueBox(owner)
            close(try Self.create(path.appending(Self.probeName), contents: Array(token.utf8)))
        } catch {
            _ = Self.removeTree(path)
            throw error
        }
    }

    deinit {
        if let fd = lock.withLockedValue({ $0 }) { close(fd) }
    }

    /// The probe file a worker reads to prove it sees this folder.
    public var probePath: BytePath { path.appending(Self.probeName) }

    /// Where attempt `attempt` of item `item` puts the compressed block at `position` in the item.
    public static func piecePath(in workspace: BytePath, item: UInt64, attempt: UInt64, position: Int) -> BytePath {
        workspace.appending(Array("p\(item)-\(attempt)-\(position)".utf8))
    }

    /// Where attempt `attempt` of stitching file `file` writes the finished member.
    public static func stitchPath(in workspace: BytePath, file: Int, attempt: UInt64) -> BytePath {
        workspace.appending(Array("s\(file)-\(attempt)".utf8))
    }

    /// Removes the folder and everything in it, then releases the lock. A fenced worker may
    /// create a piece between the sweep and `rmdir`; the sweep then runs again. Returns whether
    /// the folder is gone.
    @discardableResult
    public func remove() -> Bool {
        let removed = Self.removeTree(path)
        if let fd = lock.withLockedValue({ value -> Int32? in
            defer { value = nil }
            return value
        }) {
            close(fd)
        }
        return removed
    }

    /// Removes workspaces left directly under `destination` by jobs that died: folders with
    /// the prefix, the owner marker and a free lock. Another running job's workspace (locked)
    /// and anything else with a similar name are left alone. Returns how many were removed.
    @discardableResult
    public static func removeStale(under destination: BytePath) -> Int {
        guard let dir = destination.withCString({ opendir($0) }) else { return 0 }
        var candidates: [BytePath] = []
        let prefix = Array(Self.prefix.utf8)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name.starts(with: prefix) { candidates.append(destination.appending(name)) }
        }
        closedir(dir)
        var removed = 0
        for candidate in candidates {
            var info = stat()
            guard candidate.withCString({ lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            let owner = candidate.appending(ownerName)
            let fd = owner.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var head = [UInt8](repeating: 0, count: marker.count)
            let got = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard got == marker.count, head == marker, flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            if removeTree(candidate) { removed += 1 }
        }
        return removed
    }

    private static func create(_ file: BytePath, contents: [UInt8]) throws -> Int32 {
        let fd = file.withCString { open($0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw FileSystemError.last("create", file.display) }
        let wrote = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard wrote == contents.count else {
            let error = FileSystemError.last("write", file.display)
            close(fd)
            throw error
        }
        return fd
    }

    /// Unlinks every entry of a flat folder and removes it, sweeping again while entries keep
    /// appearing (a late writer), a bounded number of times.
    private static func removeTree(_ folder: BytePath) -> Bool {
        for _ in 0..<100 {
            if let dir = folder.withCString({ opendir($0) }) {
                var names: [[UInt8]] = []
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
                    if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
                }
                closedir(dir)
                for name in names { _ = folder.appending(name).withCString { unlink($0) } }
            }
            if folder.withCString({ rmdir($0) }) == 0 || errno == ENOENT { return true }
            if errno != ENOTEMPTY && errno != EEXIST { return false }
        }
        return false
    }
}
