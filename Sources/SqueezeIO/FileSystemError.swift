import Glibc

/// A failed file-system call: which call, on which path, and errno.
public struct FileSystemError: Error, Sendable, Equatable {
    /// The call, for example `open` or `rename`.
    public var operation: String
    /// The path as the user would recognise it.
    public var path: String
    /// errno, or 0 for a condition detected by Squeeze itself.
    public var errno: Int32
    /// For errno 0: the condition in words.
    public var detail: String?

    /// An error from a failed call; reads the current errno.
    public static func last(_ operation: String, _ path: String) -> FileSystemError {
        FileSystemError(operation: operation, path: path, errno: Glibc.errno, detail: nil)
    }

    /// An error with a known errno or, with errno 0, a detail.
    public init(operation: String, path: String, errno: Int32, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    /// The reason alone, without the path.
    public var reason: String {
        if let detail { return detail }
        return "\(operation): \(String(cString: strerror(errno)))"
    }
}

extension FileSystemError: CustomStringConvertible {
    public var description: String { "\(path): \(reason)" }
}
