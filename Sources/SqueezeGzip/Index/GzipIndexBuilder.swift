import CZlib

/// Builds the `GzipIndex` of any gzip file (one member or several) in one decoding pass. zlib
/// inflates it, stopping between deflate blocks (`Z_BLOCK`): a point goes where each member's
/// deflate data starts (it needs no window), and at the first block boundary after each
/// `spacing` uncompressed bytes, with the 32 KiB before it. Every member's CRC-32 and length
/// are checked on the way, so a damaged file is refused as `gzip -t` refuses it.
/// One thread at a time.
public final class GzipIndexBuilder {
    private enum Position {
        case inMember
        case afterMember
        case padding
    }

    private let owner: ZlibStream
    private let spacing: Int
    private var scratch = [UInt8](repeating: 0, count: 256 << 10)
    /// The last `GzipIndex.windowSize` bytes produced, as a ring ending at `windowEnd`.
    private var window = [UInt8](repeating: 0, count: GzipIndex.windowSize)
    private var windowEnd = 0
    private var position = Position.inMember
    /// Compressed bytes taken in; of them, those zlib has used.
    private var fed: UInt64 = 0
    private var consumed: UInt64 = 0
    private var produced: UInt64 = 0
    private var lastPoint: UInt64 = 0
    /// The current member's start has its point.
    private var memberStarted = false
    private var members = 0
    private var points: [GzipIndexPoint] = []

    /// A builder putting points about `spacing` uncompressed bytes apart (at least 32 KiB,
    /// at most 4 GiB - 1, as the format's field allows).
    public init(spacing: Int) throws {
        guard (GzipIndex.windowSize...Int(UInt32.max)).contains(spacing) else {
            throw ZlibError(operation: "index", code: Z_STREAM_ERROR, message: "spacing \(spacing): must be 32 KiB to 4 GiB")
        }
        self.spacing = spacing
        // windowBits 15 + 16: a 32 KiB window, gzip wrapper only.
        owner = try ZlibStream(inflateWindowBits: 15 + 16)
    }

    /// Takes the file's next bytes. Throws `ZlibError` for data that is not gzip, corrupt
    /// (a CRC or length that does not match), or followed by anything but zero padding.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let stream = owner.pointer
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        fed += UInt64(bytes.count)
        var offset = 0
        while offset < bytes.count {
            switch position {
            case .inMember:
                let piece = min(bytes.count - offset, Int(UInt32.max))
                stream.pointee.next_in = UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = uInt(piece)
                try inflateAvailable()
                let used = piece - Int(stream.pointee.avail_in)
                offset += used
            case .afterMember:
                if base.load(fromByteOffset: offset, as: UInt8.self) == 0 {
                    position = .padding
                    continue
                }
                let status = inflateReset(stream)
                guard status == Z_OK else { throw ZlibError(operation: "inflateReset", code: status, stream: stream) }
                memberStarted = false
                position = .inMember
            case .padding:
                let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                guard rest.allSatisfy({ $0 == 0 }) else { throw Self.trailingGarbage }
                consumed += UInt64(rest.count)
                offset = bytes.count
            }
        }
    }

    /// Ends the input and returns the index; throws when there was none, or the last member
    /// is incomplete (truncated).
    public func finish() throws -> GzipIndex {
        guard fed > 0 else { throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "empty input: not in gzip format") }
        guard position != .inMember else {
            throw ZlibError(operation: "inflate", code: Z_BUF_ERROR, message: "unexpected end of input: the gzip member is truncated")
        }
        return GzipIndex(compressedSize: fed, uncompressedSize: produced, spacing: UInt32(spacing), points: points)
    }

    /// Inflates until the input set on the stream is used up or its member ends, adding
    /// points at the block boundaries it stops at.
    private func inflateAvailable() throws {
        let stream = owner.pointer
        while true {
            let before = Int(stream.pointee.avail_in)
            let status = scratch.withUnsafeMutableBytes { out -> Int32 in
                stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(out.count)
                return inflate(stream, Z_BLOCK)
            }
            consumed += UInt64(before - Int(stream.pointee.avail_in))
            keep(scratch.count - Int(stream.pointee.avail_out))
            switch status {
            case Z_OK:
                let state = stream.pointee.data_type
                // Bit 7: stopped after a block or the header; bit 6: that was the last block.
                if state & 128 != 0 && state & 64 == 0 { boundary(bits: UInt8(state & 7)) }
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
            case Z_BUF_ERROR:
                return  // needs more input
            case Z_STREAM_END:
                members += 1
                position = .afterMember
                return
            case Z_DATA_ERROR where stream.pointee.total_in < 10:
                throw members > 0 ? Self.trailingGarbage : Self.notGzip
            default:
                throw ZlibError(operation: "inflate", code: status, stream: stream)
            }
        }
    }

    /// Adds the bytes just produced to the count and the window.
    private func keep(_ count: Int) {
        guard count > 0 else { return }
        produced += UInt64(count)
        var source = max(0, count - window.count)
        while source < count {
            let run = min(count - source, window.count - windowEnd)
            window.replaceSubrange(windowEnd..<(windowEnd + run), with: scratch[source..<(source + run)])
            windowEnd = (windowEnd + run) % window.count
            source += run
        }
    }

    /// A point where a member's data starts, or one `spacing` after the last point.
    private func boundary(bits: UInt8) {
        if !memberStarted {
            memberStarted = true
            points.append(GzipIndexPoint(compressedOffset: consumed, uncompressedOffset: produced, bits: 0, window: nil))
            lastPoint = produced
        } else if produced - lastPoint >= UInt64(spacing) {
            let ordered = Array(window[windowEnd...] + window[..<windowEnd])
            points.append(GzipIndexPoint(compressedOffset: consumed, uncompressedOffset: produced, bits: bits, window: ordered))
            lastPoint = produced
        }
    }

    private static let notGzip = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "not in gzip format")
    private static let trailingGarbage = ZlibError(operation: "inflate", code: Z_DATA_ERROR, message: "trailing garbage after the last gzip member")
}
