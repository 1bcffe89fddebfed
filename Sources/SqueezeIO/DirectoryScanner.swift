import Glibc

/// Walks a tree without following symlinks. Directories are opened relative to their parent
/// (`openat` with `O_NOFOLLOW`), so names of any bytes and trees deeper than PATH_MAX work.
/// Blocking: run it on a `BlockingIOPool` thread.
public enum DirectoryScanner {
    /// Scans `root` (a directory). Symlinks, FIFOs, sockets and devices are reported as skipped
    /// without being opened. `exclude`, relative to `root`, is left out (an output folder).
    /// `shouldStop` is checked before each directory; once it returns true the scan throws
    /// ECANCELED, so a shutdown never waits for a huge tree.
    public static func scan(root: BytePath, exclude: BytePath? = nil, shouldStop: () -> Bool = { false }) throws -> ScanResult {
        let fd = root.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", root.display) }
        var result = ScanResult()
        walk(directory: fd, relative: BytePath(bytes: []), exclude: exclude, shouldStop: shouldStop, into: &result)
        if shouldStop() {
            throw FileSystemError(operation: "scan", path: root.display, errno: ECANCELED, detail: "stopped")
        }
        result.files.sort { $0.relativePath < $1.relativePath }
        result.skipped.sort { $0.relativePath < $1.relativePath }
        return result
    }

    /// Describes a non-regular file type for the skip list; nil for regular files and directories.
    public static func skipReason(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG, S_IFDIR: nil
        case S_IFLNK: "symbolic link (not followed)"
        case S_IFIFO: "FIFO (not opened)"
        case S_IFSOCK: "socket (not opened)"
        case S_IFCHR: "character device (not opened)"
        case S_IFBLK: "block device (not opened)"
        default: "not a regular file"
        }
    }

    /// Reads one directory, taking ownership of `directory` (closed on return).
    private static func walk(directory: Int32, relative: BytePath, exclude: BytePath?, shouldStop: () -> Bool, into result: inout ScanResult) {
        guard let stream = fdopendir(directory) else {
            result.failures.append(ScanNote(relativePath: relative, reason: FileSystemError.last("opendir", relative.display).reason))
            close(directory)
            return
        }
        defer { closedir(stream) }
        var subdirectories: [(name: [UInt8], path: BytePath)] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 {
                    result.failures.append(ScanNote(relativePath: relative, reason: FileSystemError.last("readdir", relative.display).reason))
                }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            let path = relative.appending(name)
            if path == exclude { continue }
            var info = stat()
            let rc = BytePath(bytes: name).withCString { fstatat(dirfd(stream), $0, &info, AT_SYMLINK_NOFOLLOW) }
            if rc != 0 {
                result.failures.append(ScanNote(relativePath: path, reason: FileSystemError.last("stat", path.display).reason))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG: result.files.append(ScannedFile(relativePath: path, stamp: FileStamp(info)))
            case S_IFDIR: subdirectories.append((name, path))
            default: result.skipped.append(ScanNote(relativePath: path, reason: skipReason(mode: info.st_mode) ?? "not a regular file"))
            }
        }
        for (name, path) in subdirectories {
            if shouldStop() { return }
            let child = BytePath(bytes: name).withCString {
                openat(dirfd(stream), $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard child >= 0 else {
                result.failures.append(ScanNote(relativePath: path, reason: FileSystemError.last("open", path.display).reason))
                continue
            }
            walk(directory: child, relative: path, exclude: exclude, shouldStop: shouldStop, into: &result)
        }
    }
}
