import SqueezeZMQ

/// Reads little-endian integers from a frame, throwing `.truncated` instead of reading past it.
struct ByteReader {
    private let frame: ZMQFrame
    /// The frame's length, read once (every field read asks for what remains).
    private let count: Int
    private var offset = 0

    init(_ frame: ZMQFrame) {
        self.frame = frame
        count = frame.count
    }

    var remaining: Int { count - offset }

    /// `what` names the field in the error; built only then (a name made per field read, a
    /// file's in a listing, cost every message its share).
    mutating func read<T: FixedWidthInteger>(_: T.Type, _ what: @autoclosure () -> String) throws(ProtocolError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw .truncated(what()) }
        let value = frame.withUnsafeBytes { [offset] in $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return T(littleEndian: value)
    }

    mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String) throws(ProtocolError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated(what()) }
        defer { offset += count }
        return frame.withUnsafeBytes { [offset] in Array($0[offset..<offset + count]) }
    }

    func expectEnd(_ what: String) throws(ProtocolError) {
        if remaining != 0 { throw .malformed("\(remaining) trailing bytes after \(what)") }
    }
}
