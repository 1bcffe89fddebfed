import CZlib

/// A failed zlib call: which operation failed, the zlib return code it gave and zlib's message.
public struct ZlibError: Error, Sendable, CustomStringConvertible {
    /// The zlib function (or step) that failed, e.g. `"deflate"` or `"deflateSetDictionary"`.
    public let operation: String
    /// The zlib return code, e.g. `Z_STREAM_ERROR` (-2) or `Z_DATA_ERROR` (-3).
    public let code: Int32
    /// zlib's own message for the failure, or the generic text for `code`.
    public let message: String

    /// Creates an error from its parts; `message` defaults to zlib's generic text for `code`.
    public init(operation: String, code: Int32, message: String? = nil) {
        self.operation = operation
        self.code = code
        self.message = message ?? ZlibError.genericMessage(for: code)
    }

    /// Prefers the stream's `msg` (more specific, e.g. "incorrect data check") over the generic text.
    init(operation: String, code: Int32, stream: UnsafePointer<z_stream>) {
        let specific = stream.pointee.msg.map { String(cString: $0) }
        self.init(operation: operation, code: code, message: specific)
    }

    /// `"<operation> failed (<code>): <message>"`.
    public var description: String {
        "\(operation) failed (\(code)): \(message)"
    }

    private static func genericMessage(for code: Int32) -> String {
        // zError returns an implicitly unwrapped pointer; never trust it to be non-nil.
        zError(code).map { String(cString: $0) } ?? "zlib error \(code)"
    }
}
