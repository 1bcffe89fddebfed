import SqueezeIO

/// A tar archive of a tree laid out as one byte stream before any byte of it is read: every
/// entry's place is known, so any range of the stream can be produced on its own, by any
/// thread — headers rendered from the scan, a file's bytes read from the file (checked against
/// the scan's stamp before and after, as every read of a job is), padding and the end of the
/// archive as zeros. A job compresses the stream in blocks like one large file; nothing of it
/// is staged on disk. Immutable once built.
public final class TarLayout: Sendable {
    /// Tar tools write archives in records of 20 blocks; readers expect whole records.
    public static let recordSize: UInt64 = 10_240

    /// The folder the entries' sources are relative to.
    let sourceRoot: BytePath
    let entries: [PlacedEntry]
    /// Where each entry's header starts in the stream.
    let offsets: [UInt64]
    /// Where the end-of-archive blocks start.
    let entriesEnd: UInt64
    /// Bytes in the stream: entries, two zero blocks, zeros to a whole record.
    public let length: UInt64
    /// Regular files whose bytes the archive holds.
    public let fileCount: Int
    /// Bytes of those files.
    public let fileBytes: UInt64

    init(sourceRoot: BytePath, entries: [PlacedEntry]) {
        self.sourceRoot = sourceRoot
        self.entries = entries
        var offsets: [UInt64] = []
        offsets.reserveCapacity(entries.count)
        var position: UInt64 = 0
        var files = 0
        var bytes: UInt64 = 0
        for placed in entries {
            offsets.append(position)
            let size = placed.entry.kind.hasData ? placed.entry.size : 0
            position += UInt64(placed.headerLength) + size + UInt64(TarHeaderEncoder.padding(after: size))
            if placed.entry.kind.hasData {
                files += 1
                bytes += size
            }
        }
        self.offsets = offsets
        entriesEnd = position
        let end = position + 2 * UInt64(TarHeaderEncoder.blockSize)
        length = (end + Self.recordSize - 1) / Self.recordSize * Self.recordSize
        fileCount = files
        fileBytes = bytes
    }

    /// The first regular file whose bytes the stream holds, and its scan stamp: what a worker
    /// must see to read the stream by reference. Nil when the archive holds no file's bytes.
    public var firstFile: (path: BytePath, stamp: FileStamp)? {
        for placed in entries {
            if let source = placed.source, let stamp = placed.stamp { return (sourceRoot.appending(source), stamp) }
        }
        return nil
    }

    /// Entries in the archive, directories and links included.
    public var entryCount: Int { entries.count }

    /// The headers of the entries, in order (tests and listings).
    public var tarEntries: [TarEntry] { entries.map(\.entry) }

    /// Fills `buffer` with the stream's bytes in `range` (exactly its length). Throws when a
    /// file cannot be read or no longer matches the scan (`FileSystemError`, naming it).
    /// Blocking: on an I/O thread.
    public func read(_ range: Range<UInt64>, into buffer: UnsafeMutableRawBufferPointer) throws {
        precondition(buffer.count == Int(range.upperBound - range.lowerBound), "read outside the archive")
        try SourceSegment.read(segments(range), into: buffer)
    }

    /// What the stream's bytes in `range` are made of, in order: headers as bytes, files'
    /// ranges by path and stamp, padding and the archive's end as zeros. A reader that sees the
    /// files (a shared-storage worker) makes the range from them without the stream.
    public func segments(_ range: Range<UInt64>) -> [SourceSegment] {
        precondition(range.upperBound <= length, "read outside the archive")
        var segments: [SourceSegment] = []
        var position = range.lowerBound
        var index = entry(containing: position)
        while position < range.upperBound {
            guard index < entries.count else {
                segments.append(.zeros(Int(range.upperBound - position)))
                break
            }
            let placed = entries[index]
            let headerEnd = offsets[index] + UInt64(placed.headerLength)
            let size = placed.entry.kind.hasData ? placed.entry.size : 0
            let dataEnd = headerEnd + size
            let entryEnd = index + 1 < entries.count ? offsets[index + 1] : entriesEnd
            let stop: UInt64
            if position < headerEnd {
                stop = min(headerEnd, range.upperBound)
                let header = TarHeaderEncoder.encode(placed.entry)
                let from = Int(position - offsets[index])
                segments.append(.bytes(Array(header[from..<from + Int(stop - position)])))
            } else if position < dataEnd, let source = placed.source, let stamp = placed.stamp {
                stop = min(dataEnd, range.upperBound)
                segments.append(.file(path: sourceRoot.appending(source), stamp: stamp, range: (position - headerEnd)..<(stop - headerEnd)))
            } else {
                stop = min(entryEnd, range.upperBound)
                segments.append(.zeros(Int(stop - position)))
            }
            position = stop
            if position >= entryEnd { index += 1 }
        }
        return segments
    }

    /// The index of the entry whose header, data or padding holds `position`; the entry count
    /// past the last one.
    private func entry(containing position: UInt64) -> Int {
        guard position < entriesEnd else { return entries.count }
        var low = 0
        var high = entries.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if offsets[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
