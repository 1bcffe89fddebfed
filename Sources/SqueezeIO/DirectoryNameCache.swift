import Glibc
import NIOConcurrencyHelpers

/// The sorted names of the few directories being read in slices right now, so each slice of a
/// huge directory does not read and sort all of it again: a folder of a million files read in
/// slices of 4,096 entries would otherwise be listed 245 times. A directory is known by its
/// device, inode and change time (a directory that changed is read again); only directories
/// larger than one slice are kept, at most `capacity` of them, and one is let go once its last
/// slice is read.
final class DirectoryNameCache: Sendable {
    /// The process's cache: every slice read in this process shares it.
    static let shared = DirectoryNameCache()
    /// How many directories it keeps (the most recently used).
    static let capacity = 2

    private struct Key: Hashable {
        var device: UInt64
        var inode: UInt64
        var changedSeconds: Int64
        var changedNanoseconds: Int64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            changedSeconds = Int64(info.st_ctim.tv_sec)
            changedNanoseconds = Int64(info.st_ctim.tv_nsec)
        }
    }

    private let entries = NIOLockedValueBox<[(key: Key, names: [[UInt8]])]>([])

    /// The names of the directory `info` describes: kept ones, or `read()`'s, kept when there
    /// are more than `keepingOver`.
    func names(of info: stat, keepingOver limit: Int, read: () throws(FileSystemError) -> [[UInt8]]) throws(FileSystemError) -> [[UInt8]] {
        let key = Key(info)
        let kept = entries.withLockedValue { entries -> [[UInt8]]? in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.names
        }
        if let kept { return kept }
        let names = try read()
        if names.count > limit {
            entries.withLockedValue { entries in
                entries.removeAll { $0.key == key }
                entries.append((key, names))
                if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            }
        }
        return names
    }

    /// Lets the directory `info` describes go: its last slice is read.
    func forget(_ info: stat) {
        let key = Key(info)
        entries.withLockedValue { entries in entries.removeAll { $0.key == key } }
    }
}
