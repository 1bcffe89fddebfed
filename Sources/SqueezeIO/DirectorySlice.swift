import Glibc

/// One slice of one directory of a tree: its entries after a name, in byte order of their
/// names, until a number of files or bytes of one-block files is reached. A job scanned in
/// slices (docs/architecture.md, "Scans by workers") never holds a walk: each directory is
/// read by whoever takes its slice, a worker that sees the storage or the coordinator, and
/// the subdirectories it finds are slices of their own.
///
/// The directory is opened from the root one component at a time with `O_NOFOLLOW`, so a
/// component swapped for a symbolic link is refused, not followed. Entries are looked at
/// as the walk does (`DirectoryWalker`): regular files listed with their stamps,
/// subdirectories named, anything else skipped, unreadable entries noted.
public struct DirectorySlice: Sendable, Equatable {
    /// Regular files of at most `smallFileBytes`, in name order: the slice's batch.
    public var smallFiles: [ScannedFile] = []
    /// Larger regular files, in name order: cut into blocks by whoever plans the job.
    public var largeFiles: [ScannedFile] = []
    /// Subdirectories, in name order, relative to the root.
    public var subdirectories: [BytePath] = []
    /// Entries that are not regular files or directories.
    public var skipped: [ScanNote] = []
    /// Entries that could not be looked at.
    public var failures: [ScanNote] = []
    /// The last name the slice took when entries are left after it; nil when the directory
    /// is done.
    public var resumeAfter: [UInt8]?

    /// An empty slice.
    public init() {}

    /// What a slice is cut by.
    public struct Limits: Sendable, Equatable {
        /// Files of at most this many bytes are one-block files (`smallFiles`).
        public var smallFileBytes: UInt64
        /// The most entries of each kind a slice lists (skipped and failed entries together).
        public var maxEntries: Int
        /// The slice ends once its small files hold this many bytes.
        public var maxSmallBytes: UInt64

        /// Creates limits.
        public init(smallFileBytes: UInt64, maxEntries: Int, maxSmallBytes: UInt64) {
            self.smallFileBytes = smallFileBytes
            self.maxEntries = max(1, maxEntries)
            self.maxSmallBytes = max(1, maxSmallBytes)
        }
    }

    /// Why a directory could not be sliced.
    public enum Refusal: Error, Sendable, Equatable {
        /// It could not be opened or listed.
        case unreadable(String)
        /// It is on another file system than the root (`device` given): another mount, which
        /// whoever asked must slice itself.
        case otherFileSystem
    }

    /// Blocking: reads the slice of `directory` (relative to `root`; empty for the root
    /// itself) whose names come after `after` (all when nil). `exclude` (a name in this
    /// directory) is left out. With `sameDeviceAsRoot`, a directory whose device differs from the
    /// root's is refused (`otherFileSystem`), so every file listed shares the root's device.
    public static func read(
        root: BytePath, directory: BytePath, after: [UInt8]?, exclude: [UInt8]?, limits: Limits, sameDeviceAsRoot: Bool = false
    ) throws(Refusal) -> DirectorySlice {
        let (descriptor, info) = try open(root: root, directory: directory, sameDevice: sameDeviceAsRoot)
        defer { close(descriptor) }
        let names: [[UInt8]]
        do {
            names = try DirectoryNameCache.shared.names(of: info, keepingOver: limits.maxEntries) { () throws(FileSystemError) in
                try DirectoryNames.read(descriptor, shown: directory)
            }
        } catch {
            throw .unreadable(error.reason)
        }
        var slice = DirectorySlice()
        var smallBytes: UInt64 = 0
        var start = 0
        if let after {
            // The first name past `after` (names are sorted).
            var low = 0
            var high = names.count
            while low < high {
                let middle = (low + high) / 2
                if after.lexicographicallyPrecedes(names[middle]) { high = middle } else { low = middle + 1 }
            }
            start = low
        }
        for position in start..<names.count {
            let name = names[position]
            if let exclude, name == exclude { continue }
            let path = directory.appending(name)
            var info = stat()
            let rc = BytePath(bytes: name).withCString { fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }
            if rc != 0 {
                slice.failures.append(ScanNote(relativePath: path, reason: FileSystemError.last("stat", path.display).reason))
            } else {
                switch info.st_mode & S_IFMT {
                case S_IFREG:
                    let file = ScannedFile(relativePath: path, stamp: FileStamp(info))
                    if file.stamp.size <= limits.smallFileBytes {
                        slice.smallFiles.append(file)
                        smallBytes += file.stamp.size
                    } else {
                        slice.largeFiles.append(file)
                    }
                case S_IFDIR: slice.subdirectories.append(path)
                default:
                    slice.skipped.append(ScanNote(relativePath: path, reason: DirectoryScanner.skipReason(mode: info.st_mode) ?? "not a regular file"))
                }
            }
            let full = max(slice.smallFiles.count, slice.largeFiles.count, slice.subdirectories.count, slice.skipped.count + slice.failures.count)
            if position + 1 < names.count, full >= limits.maxEntries || smallBytes >= limits.maxSmallBytes {
                slice.resumeAfter = name
                break
            }
        }
        if slice.resumeAfter == nil { DirectoryNameCache.shared.forget(info) }
        return slice
    }

    /// Opens `directory` below `root`, each component with `O_NOFOLLOW`; returns it with its
    /// `fstat`.
    private static func open(root: BytePath, directory: BytePath, sameDevice: Bool) throws(Refusal) -> (Int32, stat) {
        var descriptor = root.withCString { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .unreadable(FileSystemError.last("open", root.display).reason) }
        var rootInfo = stat()
        if sameDevice, fstat(descriptor, &rootInfo) != 0 {
            let reason = FileSystemError.last("fstat", root.display).reason
            close(descriptor)
            throw .unreadable(reason)
        }
        for component in directory.bytes.split(separator: UInt8(ascii: "/")) {
            let child = BytePath(bytes: Array(component)).withCString {
                openat(descriptor, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let error = FileSystemError.last("open", directory.display)
            close(descriptor)
            guard child >= 0 else { throw .unreadable(error.reason) }
            descriptor = child
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = FileSystemError.last("fstat", directory.display).reason
            close(descriptor)
            throw .unreadable(reason)
        }
        if sameDevice && info.st_dev != rootInfo.st_dev {
            close(descriptor)
            throw .otherFileSystem
        }
        return (descriptor, info)
    }
}
