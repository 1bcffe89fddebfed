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
    /// The stream's length so far, end of archive excluded.
    private var length: UInt64 = 0
    private let limit: UInt64

    /// The largest stream an archive may be: sizes come from `stat`, and sparse files can
    /// claim exabytes, so the sum is bounded before it can overflow.
    public static let defaultLimit: UInt64 = 1 << 62

    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// A builder for the tree at `sourceRoot`, stored under the top folder `top` (the root's
    /// own name, usually). `limit` bounds the stream's length (tests lower it).
    public init(sourceRoot: BytePath, top: [UInt8], limit: UInt64 = defaultLimit) {
        self.sourceRoot = sourceRoot
        self.top = top
        self.limit = min(limit, Self.defaultLimit)
    }

    /// Entries so far.
    public var count: Int { entries.count }

    /// Adds entries in walk order (`DirectoryWalker(everyEntry: true)`'s `entries`); returns
    /// those left out because the archive would grow past its limit.
    @discardableResult
    public mutating func add(_ scanned: [ScannedEntry]) -> [ScanNote] {
        var refused: [ScanNote] = []
        for found in scanned where !add(found) {
            refused.append(ScanNote(relativePath: found.relativePath, reason: "left out: the archive would exceed \(limit) bytes"))
        }
        return refused
    }

    /// Adds one entry; false when it would take the stream past `limit`.
    private mutating func add(_ found: ScannedEntry) -> Bool {
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
            return true
        }
        if entry.kind == .directory { entry.name.append(UInt8(ascii: "/")) }
        let headerLength = TarHeaderEncoder.encode(entry).count
        // Each term is below 2^63 and the total below 2^62, so none of this overflows.
        let data = entry.kind.hasData ? entry.size : 0
        let room = limit - length
        guard data <= room, UInt64(headerLength) + UInt64(TarHeaderEncoder.padding(after: data)) + 2 * UInt64(TarHeaderEncoder.blockSize) + TarLayout.recordSize <= room - data else {
            if entry.kind == .hardLink || found.linkCount <= 1 { return false }
            firstNames[FileIdentity(device: found.stamp.device, inode: found.stamp.inode)] = nil
            return false
        }
        length += UInt64(headerLength) + data + UInt64(TarHeaderEncoder.padding(after: data))
        entries.append(PlacedEntry(entry: entry, source: source, stamp: stamp, headerLength: headerLength))
        return true
    }

    /// The finished layout.
    public func finish() -> TarLayout {
        TarLayout(sourceRoot: sourceRoot, entries: entries)
    }
}
