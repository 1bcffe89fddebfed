import Foundation
import Glibc
import Testing

/// What a test can see of the page cache: which pages of a file are cached, and whether a
/// folder is on tmpfs (whose pages are the file's storage and never leave).
enum PageCacheProbe {
    /// Which pages of the file's first `bytes` are in the page cache (mincore over a mapping,
    /// which faults nothing in).
    static func residentPages(of path: String, bytes: Int) throws -> [Bool] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let mapping = try #require(mmap(nil, bytes, PROT_READ, MAP_SHARED, fd, 0))
        try #require(mapping != MAP_FAILED)
        defer { munmap(mapping, bytes) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: (bytes + page - 1) / page)
        try #require(mincore(mapping, bytes, &vector) == 0)
        return vector.map { $0 & 1 == 1 }
    }

    /// tmpfs keeps a file's pages as its storage, so they never leave. The file system of
    /// `path` from /proc/self/mountinfo, by device number.
    static func isTmpfs(_ path: String) throws -> Bool {
        var info = stat()
        try #require(stat(path, &info) == 0)
        // glibc's encoding of a device number (major and minor are macros Swift does not see).
        let dev = UInt64(info.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        let device = "\(major):\(minor)"
        let table = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 3, fields[2] == device, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { continue }
            return fields[dash + 1] == "tmpfs"
        }
        return false
    }
}
