import Glibc
import NIOConcurrencyHelpers

/// Walks a tree a batch at a time, so a job can start compressing its first files while the
/// rest of a huge tree is still unread, and nothing holds the whole tree's list.
///
/// Order is depth-first: a directory's regular files in byte order of their names, then its
/// subdirectories in the same order. What the walk holds at once is one name list per open
/// directory level (the largest directory decides it), never the files already handed out.
/// Directories are opened relative to their parent (`openat` with `O_NOFOLLOW`), so names of
/// any bytes and trees deeper than PATH_MAX work. Symlinks, FIFOs, sockets and devices are
/// reported as skipped without being opened — unless the walker is made with `everyEntry`,
/// for an archive: then every entry but sockets is also listed in `entries`, in walk order,
/// a directory when the walk enters it (the root first), a symbolic link with its target. Blocking: call `next` on a `BlockingIOPool` thread;
/// one call at a time is enforced by a lock, so the walker may move between threads.
public final class DirectoryWalker: @unchecked Sendable {
    /// One open directory of the walk: its entries still to look at, then its subdirectories.
    private struct Level {
        var descriptor: Int32
        var relative: BytePath
        var entries: [[UInt8]]
        var nextEntry = 0
        var subdirectories: [[UInt8]] = []
        var nextSubdirectory = 0
    }

    private let lock = NIOLock()
    private let exclude: BytePath?
    private let everyEntry: Bool
    // Guarded by `lock`.
    private var stack: [Level] = []
    /// The root's own entry, handed out with the first batch (`everyEntry` only).
    private var rootEntry: ScannedEntry?

    /// Opens `root` (a directory). `exclude`, relative to `root`, is left out (an output folder).
    /// With `everyEntry`, `next` lists every entry in `entries` as well (see the type).
    public init(root: BytePath, exclude: BytePath? = nil, everyEntry: Bool = false) throws {
        self.exclude = exclude
        self.everyEntry = everyEntry
        let fd = root.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", root.display) }
        if everyEntry {
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let error = FileSystemError.last("fstat", root.display)
                close(fd)
                throw error
            }
            rootEntry = ScannedEntry(relativePath: BytePath(bytes: []), info: info)
        }
        var failures: [ScanNote] = []
        if let level = Self.list(descriptor: fd, relative: BytePath(bytes: []), failures: &failures) {
            stack.append(level)
        } else {
            throw FileSystemError(operation: "readdir", path: root.display, errno: EIO, detail: failures.first?.reason)
        }
    }

    deinit {
        for level in stack { close(level.descriptor) }
    }

    /// Whether every entry has been handed out.
    public var isFinished: Bool { lock.withLock { stack.isEmpty } }

    /// The next entries: at most `maxFiles` regular files (at least one directory's worth is
    /// read when it has any), with what was skipped or unreadable on the way. Empty once the
    /// walk is finished.
    public func next(maxFiles: Int) -> ScanResult {
        lock.withLock {
            var batch = ScanResult()
            if let root = rootEntry {
                batch.entries.append(root)
                rootEntry = nil
            }
            while batch.files.count < max(1, maxFiles), !stack.isEmpty {
                step(into: &batch, limit: max(1, maxFiles))
            }
            return batch
        }
    }

    /// Advances the deepest open directory: its next entries, else its next subdirectory,
    /// else it is done and closed.
    private func step(into batch: inout ScanResult, limit: Int) {
        var level = stack.removeLast()
        if level.nextEntry < level.entries.count {
            while level.nextEntry < level.entries.count, batch.files.count < limit {
                let name = level.entries[level.nextEntry]
                level.nextEntry += 1
                classify(name, in: &level, into: &batch)
            }
            if level.nextEntry == level.entries.count { level.entries = [] }
            stack.append(level)
            return
        }
        guard level.nextSubdirectory < level.subdirectories.count else {
            close(level.descriptor)
            return
        }
        let name = level.subdirectories[level.nextSubdirectory]
        level.nextSubdirectory += 1
        let path = level.relative.appending(name)
        let child = BytePath(bytes: name).withCString {
            openat(level.descriptor, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        stack.append(level)
        guard child >= 0 else {
            batch.failures.append(ScanNote(relativePath: path, reason: FileSystemError.last("open", path.display).reason))
            return
        }
        if everyEntry {
            var info = stat()
            guard fstat(child, &info) == 0 else {
                batch.failures.append(ScanNote(relativePath: path, reason: FileSystemError.last("fstat", path.display).reason))
                close(child)
                return
            }
            batch.entries.append(ScannedEntry(relativePath: path, info: info))
        }
        if let opened = Self.list(descriptor: child, relative: path, failures: &batch.failures) {
            stack.append(opened)
        }
    }

    /// Looks at one entry of `level`: a file for the batch, a subdirectory for later, or a note.
    private func classify(_ name: [UInt8], in level: inout Level, into batch: inout ScanResult) {
        let path = level.relative.appending(name)
        if path == exclude { return }
        var info = stat()
        let rc = BytePath(bytes: name).withCString { fstatat(level.descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }
        guard rc == 0 else {
            batch.failures.append(ScanNote(relativePath: path, reason: FileSystemError.last("stat", path.display).reason))
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            batch.files.append(ScannedFile(relativePath: path, stamp: FileStamp(info)))
            if everyEntry { batch.entries.append(ScannedEntry(relativePath: path, info: info)) }
        case S_IFDIR: level.subdirectories.append(name)
        case S_IFLNK where everyEntry:
            do {
                let target = try Self.linkTarget(name, in: level.descriptor, size: Int(info.st_size), shown: path)
                batch.entries.append(ScannedEntry(relativePath: path, info: info, linkTarget: target))
            } catch {
                batch.failures.append(ScanNote(relativePath: path, reason: (error as? FileSystemError)?.reason ?? "\(error)"))
            }
        case S_IFIFO where everyEntry, S_IFCHR where everyEntry, S_IFBLK where everyEntry:
            batch.entries.append(ScannedEntry(relativePath: path, info: info))
        default: batch.skipped.append(ScanNote(relativePath: path, reason: DirectoryScanner.skipReason(mode: info.st_mode) ?? "not a regular file"))
        }
    }

    /// The target of the symbolic link `name` in `directory`, read whole whatever its length
    /// (`size` is `lstat`'s guess; a link retargeted meanwhile gets a larger buffer).
    private static func linkTarget(_ name: [UInt8], in directory: Int32, size: Int, shown: BytePath) throws -> [UInt8] {
        var capacity = max(64, min(size, Int(PATH_MAX)) + 1)
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let got = BytePath(bytes: name).withCString { path in
                buffer.withUnsafeMutableBufferPointer { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return base.withMemoryRebound(to: CChar.self, capacity: capacity) { readlinkat(directory, path, $0, capacity) }
                }
            }
            guard got >= 0 else { throw FileSystemError.last("readlink", shown.display) }
            if got < capacity { return Array(buffer[..<got]) }
            guard capacity < 1 << 20 else { throw FileSystemError(operation: "readlink", path: shown.display, errno: ENAMETOOLONG) }
            capacity *= 2
        }
    }

    /// Reads a directory's names, sorted; takes ownership of `descriptor` (kept open in the
    /// level for `fstatat`/`openat`, closed here on failure).
    private static func list(descriptor: Int32, relative: BytePath, failures: inout [ScanNote]) -> Level? {
        do {
            return Level(descriptor: descriptor, relative: relative, entries: try DirectoryNames.read(descriptor, shown: relative))
        } catch {
            failures.append(ScanNote(relativePath: relative, reason: error.reason))
            close(descriptor)
            return nil
        }
    }
}
