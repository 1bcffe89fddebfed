import Glibc

/// A file-system path as raw bytes: names need not be UTF-8, may hold newlines or start with
/// a dash, and are passed to the kernel exactly as read from it.
public struct BytePath: Sendable, Hashable, Comparable {
    /// The path's bytes, without a terminating NUL.
    public var bytes: [UInt8]

    /// A path from its bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A path from a string's UTF-8.
    public init(_ string: String) {
        bytes = Array(string.utf8)
    }

    /// Whether the path has no bytes (the root of a relative tree).
    public var isEmpty: Bool { bytes.isEmpty }

    /// This path with `component` appended after a slash (no slash if this path is empty).
    public func appending(_ component: [UInt8]) -> BytePath {
        joined(component, suffix: [])
    }

    /// This path with a relative path appended.
    public func appending(_ relative: BytePath) -> BytePath {
        relative.isEmpty ? self : appending(relative.bytes)
    }

    /// This path with a relative path appended, then `suffix` (".gz"), in one allocation.
    public func appending(_ relative: BytePath, suffix: [UInt8]) -> BytePath {
        relative.isEmpty ? BytePath(bytes: bytes + suffix) : joined(relative.bytes, suffix: suffix)
    }

    /// `bytes`, a slash unless they are empty or end in one, `component` and `suffix`. One
    /// allocation: a copy of `bytes` grown twice cost three (a path per file in a batch).
    private func joined(_ component: [UInt8], suffix: [UInt8]) -> BytePath {
        if bytes.isEmpty && suffix.isEmpty { return BytePath(bytes: component) }
        var joined: [UInt8] = []
        joined.reserveCapacity(bytes.count + 1 + component.count + suffix.count)
        joined.append(contentsOf: bytes)
        if !bytes.isEmpty && bytes.last != UInt8(ascii: "/") { joined.append(UInt8(ascii: "/")) }
        joined.append(contentsOf: component)
        joined.append(contentsOf: suffix)
        return BytePath(bytes: joined)
    }

    /// The bytes after the last slash.
    public var lastComponent: [UInt8] {
        let trimmed = bytes.last == UInt8(ascii: "/") && bytes.count > 1 ? Array(bytes.dropLast()) : bytes
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return trimmed }
        return Array(trimmed[(slash + 1)...])
    }

    /// Everything before the last slash; "." for a bare name, "/" for a name under the root.
    public var parent: BytePath {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return BytePath(".") }
        return slash == 0 ? BytePath("/") : BytePath(bytes: Array(bytes[..<slash]))
    }

    /// For messages: lossy UTF-8 with control characters escaped so the message stays one line.
    public var display: String {
        var text = ""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    text += "\\x" + String(scalar.value, radix: 16)
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text
    }

    /// Runs `body` with a NUL-terminated copy of the path.
    public func withCString<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        var terminated = bytes
        terminated.append(0)
        return try terminated.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { chars in
                // A Swift array buffer of a non-empty array always has a base address.
                try body(chars.baseAddress.unsafelyUnwrapped)
            }
        }
    }

    public static func < (lhs: BytePath, rhs: BytePath) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
