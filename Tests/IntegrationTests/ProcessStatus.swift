import Foundation

/// Fields of /proc/PID/status, for tests that watch a process's memory.
enum ProcessStatus {
    /// The value of `field` (`VmRSS`, the resident set; `VmHWM`, its peak so far) in KiB; nil
    /// once the process is gone.
    static func kibibytes(_ field: String, of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
              let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first else { return nil }
        return Int(value)
    }

    /// `field` in MiB, rounded down.
    static func mebibytes(_ field: String, of pid: Int32) -> Int? {
        kibibytes(field, of: pid).map { $0 / 1024 }
    }
}
