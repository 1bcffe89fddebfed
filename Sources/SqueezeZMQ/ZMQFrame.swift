import Glibc

/// One frame of a multipart message: a small byte array, or a range of `FrameBytes` (a pooled
/// buffer or a received message) that is sent and read without copying.
///
/// A collection of its bytes, so small frames read like arrays (`Array(frame)`, `frame[0]`);
/// bulk code uses `withUnsafeBytes` (`Array(frame)` copies byte by byte: the standard
/// library's array initializer does not take the contiguous storage below). Equal frames hold
/// equal bytes, whatever their storage.
public struct ZMQFrame: Sendable {
    @usableFromInline
    enum Storage: Sendable {
        case array([UInt8])
        case shared(FrameBytes, offset: Int, count: Int)
    }

    @usableFromInline let storage: Storage

    /// A frame holding `bytes` (copied into a libzmq message when sent).
    public init(_ bytes: [UInt8]) {
        storage = .array(bytes)
    }

    /// A frame over all of `bytes` (sent without copying).
    public init(_ bytes: FrameBytes) {
        storage = .shared(bytes, offset: 0, count: bytes.count)
    }

    /// A frame over `range` of `bytes`, which must lie within them (sent without copying).
    /// Frames over one buffer may overlap.
    public init(_ bytes: FrameBytes, range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "frame range \(range) outside 0..<\(bytes.count)")
        storage = .shared(bytes, offset: range.lowerBound, count: range.count)
    }

    /// The bytes this frame shares instead of holding its own (nil for an array frame), and
    /// where in them it starts.
    public var shared: (bytes: FrameBytes, offset: Int)? {
        guard case .shared(let bytes, let offset, _) = storage else { return nil }
        return (bytes, offset)
    }

    /// Runs `body` with the frame's bytes; the pointer must not escape it. Inlinable, so a
    /// decoder reading field by field gets a specialized call, not a generic one per field.
    @inlinable
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch storage {
        case .array(let array):
            // Array's `withUnsafeBytes` rethrows untyped errors; a Result carries `E` through.
            return try array.withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }.get()
        case .shared(let bytes, let offset, let count):
            return try bytes.withUnsafeBytes { (raw) throws(E) -> R in
                try body(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count]))
            }
        }
    }
}

extension ZMQFrame: RandomAccessCollection {
    /// Offsets from 0.
    public var startIndex: Int { 0 }

    /// The frame's length.
    public var endIndex: Int {
        switch storage {
        case .array(let array): array.count
        case .shared(_, _, let count): count
        }
    }

    /// The byte at `position`.
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < endIndex, "frame index \(position) out of range")
        switch storage {
        case .array(let array): return array[position]
        case .shared: return withUnsafeBytes { $0[position] }
        }
    }

    /// The bytes as one contiguous buffer, for generic algorithms that look for it.
    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        switch storage {
        case .array(let array):
            return try array.withUnsafeBufferPointer(body)
        case .shared(let bytes, let offset, let count):
            return try bytes.withUnsafeBytes { raw in
                try body(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count]).bindMemory(to: UInt8.self))
            }
        }
    }
}

extension ZMQFrame: Equatable {
    /// Same bytes.
    public static func == (lhs: ZMQFrame, rhs: ZMQFrame) -> Bool {
        lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                guard left.count == right.count else { return false }
                guard let a = left.baseAddress, let b = right.baseAddress else { return true }  // both empty
                return memcmp(a, b, left.count) == 0
            }
        }
    }
}

extension ZMQFrame: ExpressibleByArrayLiteral {
    /// A frame of the listed bytes.
    public init(arrayLiteral bytes: UInt8...) {
        self.init(bytes)
    }
}
