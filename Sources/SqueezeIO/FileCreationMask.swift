import Glibc

/// The process's umask, read without changing it: `umask(2)` can only set it, and setting it
/// to read it would race with every thread creating files meanwhile. Linux reports it in
/// `/proc/self/status`.
public enum FileCreationMask {
    /// The current umask; 0o022 when the kernel does not say.
    public static func current() -> UInt32 {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0o022 }
        defer { close(fd) }
        var status: [UInt8] = []
        guard (try? FileDescriptorIO.readAll(fd, name: "/proc/self/status", chunkSize: 4096, { status += $0 })) != nil,
              let text = String(validating: status, as: UTF8.self) else { return 0o022 }
        for line in text.split(separator: "\n") where line.hasPrefix("Umask:") {
            let value = line.dropFirst("Umask:".count).trimmingPrefix { $0 == " " || $0 == "\t" }
            if let mask = UInt32(value, radix: 8), mask <= 0o777 { return mask }
        }
        return 0o022
    }

    /// Permissions a new file gets from `open(..., 0666)`, as tar and gzip create theirs.
    public static var newFilePermissions: UInt32 { 0o666 & ~current() }
}
