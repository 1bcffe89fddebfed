import Foundation
import Glibc
import NIOConcurrencyHelpers

/// Which process on this host holds the other end of a loopback TCP connection: what the
/// kernel knows and a peer cannot choose, so the coordinator tells apart workers that share
/// the address 127.0.0.1 without trusting the pid they claim.
///
/// The connection's two ends (`getsockname`, `getpeername`) name the peer's socket in
/// `/proc/net/tcp` (or `tcp6`), whose inode a process holds as `socket:[inode]` among its
/// descriptors in `/proc/PID/fd`. Walking every process's descriptors costs about a
/// microsecond per descriptor on the machine, so the inode-to-pid map of the last walk is
/// kept, and walked again only for an inode it lacks (or whose process no longer holds it:
/// inode numbers come back), at most once per `rescanInterval`; a lookup waits for its turn,
/// so a flood of joining peers costs one walk per interval. Unknown means nil, which the
/// coordinator takes for "one process with every other loopback peer": the safe side.
/// Processes in another pid namespace are not found (nil). Blocking: on a thread of its own.
public final class LoopbackPeers: Sendable {
    /// How soon after a walk of `/proc` an unknown inode may start another.
    public static let rescanInterval = Duration.milliseconds(50)

    private struct Cache {
        var owners: [UInt64: Int32] = [:]
        var walkedAt: ContinuousClock.Instant?
    }

    private let cache = NIOLockedValueBox(Cache())

    /// A lookup with an empty cache.
    public init() {}

    /// The pid of the process at the other end of TCP connection `descriptor`, when both ends
    /// are on loopback and the process is visible here; nil otherwise.
    public func process(ofConnection descriptor: Int32) -> Int32? {
        guard let ends = Self.ends(of: descriptor), ends.peer.isLoopback,
              let inode = Self.inode(local: ends.peer, remote: ends.mine) else { return nil }
        return cache.withLockedValue { cache in
            // Inode numbers are reused once sockets close: an entry of an older walk counts only
            // if that process still holds the socket.
            if let pid = cache.owners[inode], Self.process(pid, holds: inode) { return pid }
            var now = ContinuousClock.now
            if let walked = cache.walkedAt, now - walked < Self.rescanInterval {
                // Off the events' path (a child task of the coordinator's): waiting bounds the
                // walks under a flood of joins without giving up on the peer.
                let wait = Self.rescanInterval - (now - walked)
                let (seconds, attoseconds) = wait.components
                var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
                _ = nanosleep(&pause, nil)
                now = ContinuousClock.now
            }
            cache.owners = Self.socketOwners()
            cache.walkedAt = now
            return cache.owners[inode]
        }
    }

    /// One end of a connection as `/proc/net/tcp*` prints it: the address as 32-bit words in
    /// the host's order, `%08X` each, and the port.
    struct End: Equatable {
        var address: String
        var port: UInt16
        var isIPv6: Bool
        var isLoopback: Bool
    }

    static func ends(of descriptor: Int32) -> (mine: End, peer: End)? {
        guard let mine = end(of: descriptor, peer: false), let peer = end(of: descriptor, peer: true) else { return nil }
        return (mine, peer)
    }

    private static func end(of descriptor: Int32, peer: Bool) -> End? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                peer ? getpeername(descriptor, address, &length) : getsockname(descriptor, address, &length)
            }
        }
        guard rc == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee } }
            let bytes = withUnsafeBytes(of: address.sin_addr) { Array($0) }
            return End(address: words(bytes), port: UInt16(bigEndian: address.sin_port), isIPv6: false, isLoopback: bytes[0] == 127)
        case AF_INET6:
            let address = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee } }
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            let loopback = bytes == [UInt8](repeating: 0, count: 15) + [1]
                || (bytes.prefix(12).elementsEqual([UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]) && bytes[12] == 127)
            return End(address: words(bytes), port: UInt16(bigEndian: address.sin6_port), isIPv6: true, isLoopback: loopback)
        default:
            return nil
        }
    }

    /// `bytes` (4 or 16, in memory order) as the kernel prints them: each 32-bit word read in
    /// the host's order, `%08X`.
    static func words(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: bytes.count, by: 4).map { start in
            let word = bytes[start..<(start + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            return String(format: "%08X", word)
        }.joined()
    }

    /// The inode of the socket whose local end is `local` and remote end `remote`.
    static func inode(local: End, remote: End) -> UInt64? {
        let table = local.isIPv6 ? "/proc/net/tcp6" : "/proc/net/tcp"
        // Read to the end: the kernel gives its size as 0, and a reader that trusts that (or
        // stops at the first read) sees only the first page's rows.
        var bytes: [UInt8] = []
        do {
            try ChunkReader.read(BytePath(table), chunkSize: 64 << 10) { bytes.append(contentsOf: $0) }
        } catch {
            return nil
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let wantLocal = "\(local.address):\(String(format: "%04X", local.port))"
        let wantRemote = "\(remote.address):\(String(format: "%04X", remote.port))"
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[1] == wantLocal, fields[2] == wantRemote else { continue }
            return UInt64(fields[9])
        }
        return nil
    }

    /// Whether process `pid` holds socket `inode` among its descriptors now.
    static func process(_ pid: Int32, holds inode: UInt64) -> Bool {
        guard let descriptors = opendir("/proc/\(pid)/fd") else { return false }
        defer { closedir(descriptors) }
        let wanted = "socket:[\(inode)]"
        var target = [CChar](repeating: 0, count: 64)
        while let fd = readdir(descriptors) {
            let name = withUnsafeBytes(of: fd.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            let count = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            guard count > 0 else { continue }
            if String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == wanted { return true }
        }
        return false
    }

    /// Every visible process's socket descriptors: inode to pid.
    static func socketOwners() -> [UInt64: Int32] {
        var owners: [UInt64: Int32] = [:]
        guard let processes = opendir("/proc") else { return owners }
        defer { closedir(processes) }
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(processes) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(name) else { continue }
            guard let descriptors = opendir("/proc/\(name)/fd") else { continue }
            while let fd = readdir(descriptors) {
                let fdName = withUnsafeBytes(of: fd.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                guard fdName.first?.isNumber == true else { continue }
                let count = readlink("/proc/\(name)/fd/\(fdName)", &target, target.count - 1)
                guard count > 8 else { continue }
                let link = String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard link.hasPrefix("socket:["), link.hasSuffix("]"), let inode = UInt64(link.dropFirst(8).dropLast()) else { continue }
                owners[inode] = pid
            }
            closedir(descriptors)
        }
        return owners
    }
}
