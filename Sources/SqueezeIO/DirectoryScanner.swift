import Glibc

/// A whole tree's listing at once (tests and small trees; jobs walk with `DirectoryWalker`).
/// Blocking: run it on a `BlockingIOPool` thread.
public enum DirectoryScanner {
    /// Scans `root` (a directory). Symlinks, FIFOs, sockets and devices are reported as skipped
    /// without being opened. `exclude`, relative to `root`, is left out (an output folder).
    public static func scan(root: BytePath, exclude: BytePath? = nil) throws -> ScanResult {
        let walker = try DirectoryWalker(root: root, exclude: exclude)
        var result = ScanResult()
        while !walker.isFinished {
            let batch = walker.next(maxFiles: 4096)
            result.files += batch.files
            result.skipped += batch.skipped
            result.failures += batch.failures
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
}
