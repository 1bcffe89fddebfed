import Glibc

/// A failed call while taking a journal's lock: which call, and errno.
struct JournalLockError: Error {
    /// The call, `open`, `flock` or `fstat`.
    var operation: String
    /// errno.
    var errno: Int32
    /// A condition worded by Squeeze itself, when there is one.
    var detail: String?

    /// Whether the lock is held elsewhere (rather than the file being unusable).
    var isContended: Bool { operation == "flock" && (errno == EWOULDBLOCK || errno == EAGAIN) }

    /// The reason in words, without the path.
    var reason: String {
        if let detail { return detail }
        return "\(operation): \(String(cString: strerror(errno)))"
    }
}

extension JournalLockError: Sendable {}
