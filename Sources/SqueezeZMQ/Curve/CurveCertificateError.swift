/// A certificate that cannot be used: the file it came from (when it came from one) and why.
public struct CurveCertificateError: Error, Sendable, Equatable {
    /// The file, or nil for text parsed from memory.
    public var path: String?
    /// One line for the user, for example `no curve public-key`.
    public var reason: String

    /// An error about `path` (nil for text not read from a file).
    public init(path: String? = nil, reason: String) {
        self.path = path
        self.reason = reason
    }
}

extension CurveCertificateError: CustomStringConvertible {
    /// `PATH: reason`, one line.
    public var description: String {
        guard let path else { return reason }
        return "\(path): \(reason)"
    }
}
