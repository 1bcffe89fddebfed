import Glibc
import SqueezeIO

/// Turns a walk's entries into a `TarLayout`, in walk order: each named under the archive's
/// top folder (`DIR/...`, as `tar -C parent -cf x.tgz DIR` names them), with owner names, and a
/// regular file met again under another name stored as a hard link to the first, as tar does.
/// Sockets never reach it (the walk skips them).
public struct TarLayoutBuilder {
    private let sourceRoot: BytePath
    private let top: [UInt8]
    private var entries: [PlacedEntry] = []
    private var firstNames: [FileIdentity: [UInt8]] = [:]
    private let owners = OwnerNames()

    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// A builder for the tree at `sourceRoot`, stored under the top folder `top` (the root's
    /// own name, usually).
    public init(sourceRoot: BytePath, top: [UInt8]) {
        self.sourceRoot = sourceRoot
        self.top = top
    }

    /// Entries so far.
    public var count: Int { entries.count }

    /// Adds entries in walk order (`DirectoryWalker(everyEntry: true)`'s `entries`).
    public mutating func add(_ scanned: [ScannedEntry]) {
        for found in scanned { add(found) }
    }

    private mutating func add(_ found: ScannedEntry) {
        let relative = found.relativePath.bytes
        let name = relative.isEmpty ? top : top + [UInt8(ascii: "/")] + relative
        var entry = TarEntry(
            name: name, kind: .regular, permissions: found.mode & 0o7777, owner: found.owner, group: found.group,
            userName: owners.user(found.owner), groupName: owners.group(found.group),
            modifiedSeconds: found.stamp.modifiedSeconds, modifiedNanoseconds: found.stamp.modifiedNanoseconds)
        var source: BytePath?
        var stamp: FileStamp?
        switch found.type {
        case UInt32(S_IFREG):
            let identity = FileIdentity(device: found.stamp.device, inode: found.stamp.inode)
            if found.linkCount > 1, let first = firstNames[identity] {
                entry.kind = .hardLink
                entry.linkTarget = first
            } else {
                if found.linkCount > 1 { firstNames[identity] = name }
                entry.size = found.stamp.size
                if entry.size > 0 {
                    source = found.relativePath
                    stamp = found.stamp
                }
            }
        case UInt32(S_IFDIR):
            entry.kind = .directory
        case UInt32(S_IFLNK):
            entry.kind = .symbolicLink
            entry.linkTarget = found.linkTarget ?? []
        case UInt32(S_IFCHR), UInt32(S_IFBLK):
            entry.kind = found.type == UInt32(S_IFCHR) ? .characterDevice : .blockDevice
            // glibc's encoding of dev_t (gnu_dev_major / gnu_dev_minor).
            let device = found.deviceNumber
            entry.deviceMajor = UInt32(truncatingIfNeeded: ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff))
            entry.deviceMinor = UInt32(truncatingIfNeeded: (device & 0xff) | ((device >> 12) & ~0xff))
        case UInt32(S_IFIFO):
            entry.kind = .fifo
        default:
            return
        }
        if entry.kind == .directory { entry.name.append(UInt8(ascii: "/")) }
        entries.append(PlacedEntry(entry: entry, source: source, stamp: stamp, headerLength: TarHeaderEncoder.encode(entry).count))
    }

    /// The finished layout.
    public func finish() -> TarLayout {
        TarLayout(sourceRoot: sourceRoot, entries: entries)
    }
}
