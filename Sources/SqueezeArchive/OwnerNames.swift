import Glibc

/// User and group names for ids, as tar stores them beside the numbers, looked up once per id
/// (`getpwuid_r`, `getgrgid_r`). Not thread-safe: one archive's scan uses it.
final class OwnerNames {
    private var users: [UInt32: [UInt8]] = [:]
    private var groups: [UInt32: [UInt8]] = [:]

    /// The user name of `uid`; empty when it has none.
    func user(_ uid: UInt32) -> [UInt8] {
        if let known = users[uid] { return known }
        let name = Self.lookup { buffer, size in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let rc = getpwuid_r(uid_t(uid), &entry, buffer, size, &result)
            return (rc, result == nil ? nil : entry.pw_name.map(Self.bytes))
        }
        users[uid] = name
        return name
    }

    /// The group name of `gid`; empty when it has none.
    func group(_ gid: UInt32) -> [UInt8] {
        if let known = groups[gid] { return known }
        let name = Self.lookup { buffer, size in
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            let rc = getgrgid_r(gid_t(gid), &entry, buffer, size, &result)
            return (rc, result == nil ? nil : entry.gr_name.map(Self.bytes))
        }
        groups[gid] = name
        return name
    }

    /// A C string's bytes as they are, UTF-8 or not.
    private static func bytes(_ string: UnsafeMutablePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: string, count: strlen(string)))
    }

    /// Runs a reentrant lookup with a scratch buffer, growing it on ERANGE; empty when the
    /// id is unknown or the lookup fails.
    private static func lookup(_ call: (UnsafeMutablePointer<CChar>, Int) -> (Int32, [UInt8]?)) -> [UInt8] {
        var size = 1024
        while size <= 1 << 20 {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let (rc, name) = call(buffer, size)
            if rc == ERANGE {
                size *= 4
                continue
            }
            return rc == 0 ? name ?? [] : []
        }
        return []
    }
}
