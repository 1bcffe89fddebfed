/// A run of a composite source, such as a tar stream laid out over a tree: bytes given as
/// they are (a header), zeros (padding, the archive's end), or a range of a file the scan
/// stamped. A block of the stream is the concatenation of its segments, so any reader that
/// sees the files can produce it without the whole stream.
public enum SourceSegment: Sendable, Equatable {
    /// These bytes.
    case bytes([UInt8])
    /// This many zero bytes.
    case zeros(Int)
    /// `range` of the file at `path`, which must still match `stamp` (`SourceReader`).
    case file(path: BytePath, stamp: FileStamp, range: Range<UInt64>)

    /// Bytes it contributes.
    public var length: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .zeros(let count): count
        case .file(_, _, let range): Int(range.upperBound - range.lowerBound)
        }
    }

    /// Blocking: fills `buffer`, exactly as long as the segments together, with them in order;
    /// a file that no longer matches its stamp (as `match` compares) fails the read, naming it.
    public static func read(_ segments: [SourceSegment], into buffer: UnsafeMutableRawBufferPointer, matching match: StampMatch = .exact) throws {
        precondition(segments.reduce(0) { $0 + $1.length } == buffer.count, "segments do not fill the buffer")
        var at = 0
        for segment in segments {
            let slot = UnsafeMutableRawBufferPointer(rebasing: buffer[at..<at + segment.length])
            switch segment {
            case .bytes(let bytes): bytes.withUnsafeBytes { slot.copyMemory(from: $0) }
            case .zeros: slot.initializeMemory(as: UInt8.self, repeating: 0)
            case .file(let path, let stamp, let range): try SourceReader.read(path, expected: stamp, range: range, into: slot, matching: match)
            }
            at += segment.length
        }
    }

    /// Blocking: the segments' bytes as one array.
    public static func read(_ segments: [SourceSegment], matching match: StampMatch = .exact) throws -> [UInt8] {
        let count = segments.reduce(0) { $0 + $1.length }
        guard count > 0 else {
            // See `SourceReader.read`: no `unsafeUninitializedCapacity` for no bytes.
            try read(segments, into: UnsafeMutableRawBufferPointer(start: nil, count: 0), matching: match)
            return []
        }
        var failure: (any Error)?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            do {
                try read(segments, into: UnsafeMutableRawBufferPointer(raw), matching: match)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
