/// Published files of one job in one folder, recorded as one journal row: a batch of small
/// files costs the journal a row per folder, not a row per file (#41; a row per file was about
/// 40 % of a shared cluster coordinator's CPU on 200,000 small files).
///
/// The row's `files` column packs the records, sorted by name, each as: the name's length, the
/// name's bytes, then source size, source mtime seconds, source mtime nanoseconds, source
/// device, source inode, output size and output inode, each of these an unsigned LEB128
/// varint (a signed value as its UInt64 bit pattern), then the CRC-32 (four bytes, little
/// endian). About 35 bytes for a small file's record, where fixed-width fields took 76: what
/// the journal writes (twice, WAL and database) is half.
struct PublishedGroup {
    /// The job.
    var job: UInt64
    /// The records' paths up to and including their last slash (empty for the root's files):
    /// a path is its group's `directory` followed by its name, whatever its bytes.
    var directory: [UInt8]
    /// The records, sorted by name (byte order), no name twice.
    var files: [PublishedFile]

    /// Fewest bytes a record takes: a one-byte varint for each of its eight numbers, and the CRC.
    static let smallestRecord = 8 + 4

    /// A path's folder (up to and including its last slash) and name (the rest).
    static func split(_ path: [UInt8]) -> (directory: [UInt8], name: [UInt8]) {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return ([], path) }
        return (Array(path[...slash]), Array(path[(slash + 1)...]))
    }

    /// A record's name: its path after the folder.
    func name(of file: PublishedFile) -> ArraySlice<UInt8> {
        file.path[directory.count...]
    }

    /// The first and last names.
    var range: (first: [UInt8], last: [UInt8])? {
        guard let first = files.first, let last = files.last else { return nil }
        return (Array(name(of: first)), Array(name(of: last)))
    }

    /// The packed records, written through a pointer into one allocation sized for the worst
    /// case (a ten-byte varint each): an array append per byte was a few per cent of a
    /// coordinator's CPU on small files.
    func packed() -> [UInt8] {
        let most = files.reduce(0) { $0 + Self.largestRecord + $1.path.count - directory.count }
        return [UInt8](unsafeUninitializedCapacity: most) { buffer, written in
            guard let start = buffer.baseAddress else { return }
            var at = start
            for file in files {
                let name = name(of: file)
                at = Self.put(UInt64(name.count), at: at)
                name.withUnsafeBufferPointer { bytes in
                    if let base = bytes.baseAddress { at.update(from: base, count: bytes.count) }
                }
                at += name.count
                at = Self.put(file.sourceSize, at: at)
                at = Self.put(UInt64(bitPattern: file.sourceModifiedSeconds), at: at)
                at = Self.put(UInt64(bitPattern: file.sourceModifiedNanoseconds), at: at)
                at = Self.put(file.sourceDevice, at: at)
                at = Self.put(file.sourceInode, at: at)
                at = Self.put(file.outputSize, at: at)
                at = Self.put(file.outputInode, at: at)
                for shift in stride(from: 0, to: 32, by: 8) {
                    at.pointee = UInt8(truncatingIfNeeded: file.crc >> UInt32(shift))
                    at += 1
                }
            }
            written = at - start
        }
    }

    /// Writes `value` as an unsigned LEB128 varint at `at`; returns where it ends.
    @inline(__always)
    private static func put(_ value: UInt64, at start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var at = start
        var rest = value
        while rest >= 0x80 {
            at.pointee = UInt8(truncatingIfNeeded: rest) | 0x80
            at += 1
            rest >>= 7
        }
        at.pointee = UInt8(rest)
        return at + 1
    }

    /// Most bytes a record takes besides its name: the name's length and seven numbers as
    /// ten-byte varints at most, and the CRC.
    static let largestRecord = 8 * 10 + 4

    /// The records packed in `bytes`, which must be `count` of them, sorted, each name once;
    /// anything else is a `.corrupt` problem of `row`.
    static func unpack(_ bytes: [UInt8], count: Int, job: UInt64, directory: [UInt8], row: StoredRow) throws -> [PublishedFile] {
        var files: [PublishedFile] = []
        files.reserveCapacity(min(count, bytes.count / smallestRecord))
        var at = 0
        var previous: ArraySlice<UInt8>?
        func take(_ size: Int) throws -> ArraySlice<UInt8> {
            guard size <= bytes.count - at else { throw row.corrupt("a record is cut short") }
            defer { at += size }
            return bytes[at..<(at + size)]
        }
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                guard at < bytes.count else { throw row.corrupt("a record is cut short") }
                let byte = bytes[at]
                at += 1
                // The tenth byte holds the top bit alone.
                guard shift < 63 || byte <= 1 else { throw row.corrupt("a number runs past 64 bits") }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
            }
            throw row.corrupt("a number runs past 64 bits")
        }
        while at < bytes.count {
            let length = try varint()
            guard length <= UInt64(bytes.count - at) else { throw row.corrupt("a record is cut short") }
            let name = try take(Int(length))
            if let previous, compareBytes(previous, name) >= 0 { throw row.corrupt("names out of order") }
            previous = name
            let (size, seconds, nanoseconds) = (try varint(), try varint(), try varint())
            let (device, inode, outputSize, outputInode) = (try varint(), try varint(), try varint(), try varint())
            var crc: UInt32 = 0
            for (shift, byte) in try take(4).enumerated() { crc |= UInt32(byte) << (8 * shift) }
            files.append(PublishedFile(
                job: job,
                path: directory + name,
                sourceSize: size,
                sourceModifiedSeconds: Int64(bitPattern: seconds),
                sourceModifiedNanoseconds: Int64(bitPattern: nanoseconds),
                sourceDevice: device,
                sourceInode: inode,
                outputSize: outputSize,
                outputInode: outputInode,
                crc: crc
            ))
        }
        guard files.count == count else { throw row.corrupt("\(files.count) records where the row says \(count)") }
        return files
    }
}
