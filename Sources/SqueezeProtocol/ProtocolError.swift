/// Why a received message could not be decoded. Receivers count and log these, then drop the
/// message; they never crash on one.
public enum ProtocolError: Error, Sendable, Equatable {
    /// The message has no frames at all.
    case empty
    /// The header frame does not start with the magic bytes "SQ".
    case badMagic
    /// A header carries a protocol version this build does not speak.
    case unsupportedVersion(UInt8)
    /// A header names a message type this build does not know.
    case unknownType(UInt8)
    /// A frame ended before `what` could be read.
    case truncated(String)
    /// `what` is larger than the protocol allows, in bytes.
    case oversized(String, size: Int, limit: Int)
    /// A count (`what`: blocks, pieces) is larger than the protocol allows.
    case tooMany(String, count: Int, limit: Int)
    /// The frame count does not match what the body announces.
    case frameCount(expected: Int, actual: Int)
    /// The body is present but wrong: bad JSON, inconsistent lengths, trailing bytes.
    case malformed(String)
}

extension ProtocolError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .empty: "empty message"
        case .badMagic: "bad magic in header frame"
        case .unsupportedVersion(let version): "unsupported protocol version \(version)"
        case .unknownType(let type): "unknown message type \(type)"
        case .truncated(let what): "truncated \(what)"
        case .oversized(let what, let size, let limit): "\(what) of \(size) bytes exceeds the limit of \(limit)"
        case .tooMany(let what, let count, let limit): "\(what) \(count) exceeds the limit of \(limit)"
        case .frameCount(let expected, let actual): "expected \(expected) frames, got \(actual)"
        case .malformed(let reason): "malformed body: \(reason)"
        }
    }
}
