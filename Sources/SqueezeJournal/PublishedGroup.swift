/// Published files of one job in one folder, recorded as one journal row: a batch of small
/// files costs the journal a row per folder, not a row per file (#41; a row per file was about
/// 40 % of a shared cluster coordinator's CPU on 200,000 small files).
///
/// The row's `files` column packs the records, sorted by name, each as: name length (UInt32
/// little-endian), the name's bytes, then source size, source mtime seconds, source mtime
/// nanoseconds, source device, source inode, output size, output inode (eight-byte
/// little-endian integers) and the CRC-32 (four bytes).
struct PublishedGroup {
    /// The job.
    var job: UInt64
    /// The folder, relative to the job's source root (empty for the root itself).
    var directory: [UInt8]
    /// The records, sorted by name (byte order), no name twice.
    var files: [PublishedFile]

    /// Bytes a record takes besides its name.
    static let fixedBytes = 4 + 7 * 8 + 4

    /// A path's folder and name: split at its last "/" (a path without one is a name in the root).
    static func split(_ path: [UInt8]) -> (directory: [UInt8], name: [UInt8]) {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return ([], path) }
        return (Array(path[..<slash]), Array(path[(slash + 1)...]))
    }

    /// A record's name: its path after the folder.
    func name(of file: PublishedFile) -> ArraySlice<UInt8> {
        directory.isEmpty ? file.path[...] : file.path[(directory.count + 1)...]
    }

    /// The first and last names.
    var range: (first: [UInt8], last: [UInt8])? {
        guard let first = files.first, let last = files.last else { return nil }
        return (Array(name(of: first)), Array(name(of: last)))
    }

    /// The packed records.
    func packed() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(files.reduce(0) { $0 + Self.fixedBytes + $1.path.count - directory.count })
        for file in files {
            let name = name(of: file)
            Self.append(UInt32(name.count), to: &bytes)
            bytes.append(contentsOf: name)
            for value in [file.sourceSize, UInt64(bitPattern: file.sourceModifiedSeconds), UInt64(bitPattern: file.sourceModifiedNanoseconds),
                          file.sourceDevice, file.sourceInode, file.outputSize, file.outputInode] {
                Self.append(value, to: &bytes)
            }
            Self.append(file.crc, to: &bytes)
        }
        return bytes
    }

    /// The records packed in `bytes`, which must be `count` of them, sorted, each name once;
    /// anything else is a `.corrupt` problem of `row`.
    static func unpack(_ bytes: [UInt8], count: Int, job: UInt64, directory: [UInt8], row: StoredRow) throws -> [PublishedFile] {
        var files: [PublishedFile] = []
        files.reserveCapacity(min(count, bytes.count / fixedBytes))
        var at = 0
        var previous: ArraySlice<UInt8>?
        func take(_ size: Int) throws -> ArraySlice<UInt8> {
            guard size <= bytes.count - at else { throw row.corrupt("a record is cut short") }
            defer { at += size }
            return bytes[at..<(at + size)]
        }
        func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            var value: T = 0
            for (shift, byte) in try take(MemoryLayout<T>.size).enumerated() { value |= T(byte) << (8 * shift) }
            return value
        }
        while at < bytes.count {
            let name = try take(Int(try integer(UInt32.self)))
            if let previous, compareBytes(previous, name) >= 0 { throw row.corrupt("names out of order") }
            previous = name
            var values: [UInt64] = []
            for _ in 0..<7 { values.append(try integer(UInt64.self)) }
            let crc = try integer(UInt32.self)
            files.append(PublishedFile(
                job: job,
                path: directory.isEmpty ? Array(name) : directory + [UInt8(ascii: "/")] + name,
                sourceSize: values[0],
                sourceModifiedSeconds: Int64(bitPattern: values[1]),
                sourceModifiedNanoseconds: Int64(bitPattern: values[2]),
                sourceDevice: values[3],
                sourceInode: values[4],
                outputSize: values[5],
                outputInode: values[6],
                crc: crc
            ))
        }
        guard files.count == count else { throw row.corrupt("\(files.count) records where the row says \(count)") }
        return files
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
