import Glibc

/// Which kernel this process runs on. Two processes on one kernel (containers included) share
/// one page cache, so one `syncfs` makes both processes' writes durable.
public enum KernelIdentity {
    /// `/proc/sys/kernel/random/boot_id`, or nil where it cannot be read.
    public static let bootID: String? = {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard got > 0 else { return nil }
        var text = Substring(String(decoding: buffer.prefix(got), as: UTF8.self))
        while text.last?.isNewline == true { text.removeLast() }
        return text.isEmpty ? nil : String(text)
    }()
}
