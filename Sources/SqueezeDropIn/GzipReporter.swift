import Glibc
import SqueezeIO

/// Messages on stderr in gzip's words, prefixed `squeeze:`, and the exit status they add up
/// to: 0 when all went well, 2 when a file failed or was skipped with a warning.
final class GzipReporter {
    /// The exit status so far.
    private(set) var status: Int32 = 0
    private let quiet: Bool

    init(quiet: Bool) {
        self.quiet = quiet
    }

    /// A file that could not be handled: always shown.
    func failed(_ path: BytePath, _ reason: String) {
        say("\(path.display): \(reason)")
        status = max(status, 2)
    }

    /// A file left alone on purpose: shown unless `-q`.
    func warn(_ path: BytePath, _ reason: String) {
        if !quiet { say("\(path.display): \(reason)") }
        status = max(status, 2)
    }

    /// A `-v` line about a file.
    func note(_ text: String) {
        say(text, prefixed: false)
    }

    /// A line on stderr.
    func say(_ text: String, prefixed: Bool = true) {
        let line = (prefixed ? "squeeze: " : "") + text + "\n"
        Array(line.utf8).withUnsafeBytes { try? FileDescriptorIO.writeAll(2, $0, name: "standard error") }
    }
}
