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
    /// The directory, relative to the root (empty for the root itself).
    public var directory = BytePath(bytes: [])
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
    /// With `through`, the slice ends at that name (the directory is done for it); names in
    /// `known` (in byte order) are passed over without a look.
    public static func read(
        root: BytePath, directory: BytePath, after: [UInt8]?, exclude: [UInt8]?, limits: Limits, sameDeviceAsRoot: Bool = false,
        through: [UInt8]? = nil, known: [[UInt8]] = []
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
        slice.directory = directory
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
        // Both in byte order: one pass over the names and the known ones together.
        var knownAt = 0
        for position in start..<names.count {
            let name = names[position]
            if let through, through.lexicographicallyPrecedes(name) { break }
            if let exclude, name == exclude { continue }
            while knownAt < known.count, known[knownAt].lexicographicallyPrecedes(name) { knownAt += 1 }
            if knownAt < known.count, known[knownAt] == name { continue }
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

    /// Blocking: reads the slice of `directory` after `after`, then, while the limits leave
    /// room, its subdirectories depth first, then each of `more` and its subdirectories the
    /// same way, each whole or until the limits end it: a subtree
    /// of many small folders is one piece of work, not one per folder. The limits hold for all
    /// the slices together, and at most `maxDirectories` are read. A subdirectory named by a
    /// slice, or one of `more`, not read as one of its own (no room, another file system,
    /// unreadable) is left to the caller. `exclude` is a path relative to the root, left out wherever it lies.
    /// Throws only when `directory` itself cannot be read.
    public static func walk(
        root: BytePath, directory: BytePath, after: [UInt8]?, then more: [BytePath] = [], exclude: BytePath?, limits: Limits,
        maxDirectories: Int, sameDeviceAsRoot: Bool = false
    ) throws(Refusal) -> [DirectorySlice] {
        var slices: [DirectorySlice] = []
        // A stack: `directory` first, then its subdirectories depth first, then each of `more` so.
        var pending: [(directory: BytePath, after: [UInt8]?)] = more.reversed().map { ($0, nil) } + [(directory, after)]
        var totals = (small: 0, large: 0, subdirectories: 0, notes: 0, bytes: UInt64(0))
        while let next = pending.popLast(), slices.count < max(1, maxDirectories) {
            let most = max(totals.small, totals.large, totals.subdirectories, totals.notes)
            guard most < limits.maxEntries, totals.bytes < limits.maxSmallBytes else { break }
            let room = Limits(smallFileBytes: limits.smallFileBytes, maxEntries: limits.maxEntries - most, maxSmallBytes: limits.maxSmallBytes - totals.bytes)
            let slice: DirectorySlice
            do {
                slice = try read(
                    root: root, directory: next.directory, after: next.after, exclude: excluded(exclude, in: next.directory), limits: room,
                    sameDeviceAsRoot: sameDeviceAsRoot)
            } catch {
                if slices.isEmpty { throw error }
                continue
            }
            slices.append(slice)
            totals.small += slice.smallFiles.count
            totals.large += slice.largeFiles.count
            totals.subdirectories += slice.subdirectories.count
            totals.notes += slice.skipped.count + slice.failures.count
            totals.bytes += slice.smallFiles.reduce(0) { $0 + $1.stamp.size }
            if slice.resumeAfter != nil { break }
            // Depth first, in name order: the first subdirectory is read next.
            pending += slice.subdirectories.reversed().map { ($0, nil) }
        }
        return slices
    }

    /// The name `exclude` (relative to the root) has in `directory`, when it lies directly in it.
    public static func excluded(_ exclude: BytePath?, in directory: BytePath) -> [UInt8]? {
        guard let exclude, !exclude.bytes.isEmpty else { return nil }
        let slash = exclude.bytes.lastIndex(of: UInt8(ascii: "/"))
        let parent = slash.map { Array(exclude.bytes[..<$0]) } ?? []
        let name = slash.map { Array(exclude.bytes[($0 + 1)...]) } ?? exclude.bytes
        return parent == directory.bytes ? name : nil
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
