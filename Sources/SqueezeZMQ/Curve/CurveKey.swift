import CZeroMQ

/// A CURVE key, public or secret: 32 bytes, written as 40 characters of Z85 (ZeroMQ RFC 32)
/// in certificates and logs.
public struct CurveKey: Sendable, Hashable {
    /// Bytes in a key.
    public static let byteCount = 32
    /// Characters of its Z85 text.
    public static let textCount = 40

    /// The 32 bytes.
    public let bytes: [UInt8]

    /// A key from exactly 32 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A key from its 40-character Z85 text; nil for another length or a character outside
    /// the Z85 alphabet (checked here, before libzmq sees the text).
    public init?(z85 text: String) {
        let characters = Array(text.utf8)
        guard characters.count == Self.textCount, characters.allSatisfy(Self.isZ85) else { return nil }
        var decoded = [UInt8](repeating: 0, count: Self.byteCount)
        let ok = decoded.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return squeeze_zmq_z85_decode(base, text) != nil
        }
        guard ok else { return nil }
        bytes = decoded
    }

    /// The 40-character Z85 text.
    public var z85: String {
        // Z85 needs 5 characters per 4 bytes, and libzmq writes a terminating NUL.
        var text = [CChar](repeating: 0, count: Self.textCount + 1)
        let encoded = text.withUnsafeMutableBufferPointer { buffer -> Bool in
            bytes.withUnsafeBufferPointer { raw in
                guard let destination = buffer.baseAddress, let source = raw.baseAddress else { return false }
                return squeeze_zmq_z85_encode(destination, source, raw.count) != nil
            }
        }
        // Cannot fail for 32 bytes (a multiple of 4); an empty string would show it if it did.
        guard encoded else { return "" }
        return String(decoding: text.prefix(Self.textCount).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `character` belongs to the Z85 alphabet.
    static func isZ85(_ character: UInt8) -> Bool {
        z85Alphabet.contains(character)
    }

    private static let z85Alphabet = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)
}

extension CurveKey: CustomStringConvertible {
    /// The Z85 text (for a public key; never log a secret one).
    public var description: String { z85 }
}
