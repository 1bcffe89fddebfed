import CSqueezeSystem
import Glibc

/// Folder helpers for the output tree. Blocking: run on a `BlockingIOPool` thread.
public enum Directories {
    /// Creates `path` and its missing parents (mode 0755); an existing directory is fine, an
    /// existing non-directory is an error. Returns whether this call made `path` itself (it
    /// did not exist): then nothing in it predates the caller.
    @discardableResult
    public static func create(_ path: BytePath) throws -> Bool {
        var prefix: [UInt8] = []
        var created = false
        let parts = path.bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            if index > 0 { prefix.append(UInt8(ascii: "/")) }
            prefix.append(contentsOf: part)
            if part.isEmpty { continue }
            let current = BytePath(bytes: prefix)
            created = false
            if current.withCString({ mkdir($0, 0o755) }) == 0 {
                created = true
                continue
            }
            guard errno == EEXIST else { throw FileSystemError.last("mkdir", current.display) }
            var info = stat()
            guard current.withCString({ stat($0, &info) }) == 0 else { throw FileSystemError.last("stat", current.display) }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw FileSystemError(operation: "mkdir", path: current.display, errno: ENOTDIR)
            }
        }
        return created
    }

    /// Renames `from` to `to` unless something is already at `to` (then EEXIST): atomic with
    /// RENAME_NOREPLACE; on a file system without it, a check then a rename (not atomic, but rare).
    /// Returns 0, or -1 with errno set, like rename(2).
    public static func renameWithoutReplacing(_ from: BytePath, to: BytePath) -> Int32 {
        let renamed = from.withCString { from in to.withCString { squeeze_rename_noreplace(from, $0) } }
        guard renamed != 0 && errno == EINVAL else { return renamed }
        if exists(to) {
            errno = EEXIST
            return -1
        }
        return from.withCString { from in to.withCString { rename(from, $0) } }
    }

    /// `stat` that follows symlinks; nil when the path does not exist.
    public static func status(_ path: BytePath) throws -> stat? {
        var info = stat()
        if path.withCString({ stat($0, &info) }) == 0 { return info }
        if errno == ENOENT { return nil }
        throw FileSystemError.last("stat", path.display)
    }

    /// Whether anything (even a dangling symlink) exists at `path`.
    public static func exists(_ path: BytePath) -> Bool {
        var info = stat()
        return path.withCString { lstat($0, &info) } == 0
    }

    /// The canonical absolute form of an existing path.
    public static func canonical(_ path: BytePath) throws -> BytePath {
        guard let resolved = path.withCString({ realpath($0, nil) }) else {
            throw FileSystemError.last("realpath", path.display)
        }
        defer { free(resolved) }
        let length = strlen(resolved)
        return BytePath(bytes: Array(UnsafeRawBufferPointer(start: resolved, count: length)))
    }
}
