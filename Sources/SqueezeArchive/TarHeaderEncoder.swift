/// Writes an entry's header in the POSIX.1-2001 pax format: a ustar header, preceded by an
/// extended header (type `x`) when ustar's fields cannot hold the entry: a name or link target
/// too long for them, a size or id too large, a time with a fraction of a second or before
/// 1970, a long owner name. GNU tar, bsdtar and Python's tarfile all read it. Deterministic:
/// the same entry gives the same bytes.
public enum TarHeaderEncoder {
    /// Tar's unit: headers and padded data are whole blocks of this size.
    public static let blockSize = 512

    private static let slash = UInt8(ascii: "/")

    /// The header bytes of `entry`: 512, or more with an extended header.
    public static func encode(_ entry: TarEntry) -> [UInt8] {
        var name = entry.name
        if entry.kind == .directory, name.last != slash { name.append(slash) }
        var records = PaxRecords()
        var ustar = [UInt8](repeating: 0, count: blockSize)

        if let (prefix, rest) = split(name) {
            put(rest, into: &ustar, at: 0, width: 100)
            put(prefix, into: &ustar, at: 345, width: 155)
        } else {
            records.add(name: "path", name)
            put(Array(name.prefix(100)), into: &ustar, at: 0, width: 100)
        }
        putOctal(UInt64(entry.permissions & 0o7777), into: &ustar, at: 100, width: 8)
        if !putOctal(UInt64(entry.owner), into: &ustar, at: 108, width: 8) { records.add("uid", String(entry.owner)) }
        if !putOctal(UInt64(entry.group), into: &ustar, at: 116, width: 8) { records.add("gid", String(entry.group)) }
        let size = entry.kind.hasData ? entry.size : 0
        if !putOctal(size, into: &ustar, at: 124, width: 12) { records.add("size", String(size)) }
        let seconds = entry.modifiedSeconds
        let fitsSeconds = seconds >= 0 && putOctal(UInt64(seconds), into: &ustar, at: 136, width: 12)
        if !fitsSeconds || entry.modifiedNanoseconds != 0 {
            records.add("mtime", PaxRecords.time(seconds: seconds, nanoseconds: entry.modifiedNanoseconds))
        }
        ustar[156] = entry.kind.rawValue
        if entry.linkTarget.count <= 100 {
            put(entry.linkTarget, into: &ustar, at: 157, width: 100)
        } else {
            records.add(name: "linkpath", entry.linkTarget)
            put(Array(entry.linkTarget.prefix(100)), into: &ustar, at: 157, width: 100)
        }
        put(Array("ustar".utf8) + [0], into: &ustar, at: 257, width: 6)
        put(Array("00".utf8), into: &ustar, at: 263, width: 2)
        if entry.userName.count <= 32 { put(entry.userName, into: &ustar, at: 265, width: 32) } else { records.add(name: "uname", entry.userName) }
        if entry.groupName.count <= 32 { put(entry.groupName, into: &ustar, at: 297, width: 32) } else { records.add(name: "gname", entry.groupName) }
        if entry.kind == .characterDevice || entry.kind == .blockDevice {
            // No standard pax keyword holds a larger number; such devices do not occur.
            putOctal(min(UInt64(entry.deviceMajor), 0o7777777), into: &ustar, at: 329, width: 8)
            putOctal(min(UInt64(entry.deviceMinor), 0o7777777), into: &ustar, at: 337, width: 8)
        }
        seal(&ustar)
        guard !records.isEmpty else { return ustar }
        return extendedHeader(records.encoded, for: name, modifiedSeconds: seconds) + ustar
    }

    /// The data's padding to a whole block.
    public static func padding(after size: UInt64) -> Int {
        Int((UInt64(blockSize) - size % UInt64(blockSize)) % UInt64(blockSize))
    }

    /// An `x` header holding `records`, then the records padded to a block. Its own name is
    /// derived from the entry's (`PaxHeaders/<last component>`), as tar tools do; readers ignore it.
    private static func extendedHeader(_ records: [UInt8], for name: [UInt8], modifiedSeconds: Int64) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: blockSize)
        var trimmed = name[...]
        while trimmed.last == slash { trimmed = trimmed.dropLast() }
        let last = trimmed.split(separator: slash, omittingEmptySubsequences: true).last.map(Array.init) ?? []
        put(Array("PaxHeaders/".utf8) + last.prefix(89), into: &header, at: 0, width: 100)
        putOctal(0o644, into: &header, at: 100, width: 8)
        putOctal(0, into: &header, at: 108, width: 8)
        putOctal(0, into: &header, at: 116, width: 8)
        putOctal(UInt64(records.count), into: &header, at: 124, width: 12)
        putOctal(UInt64(min(max(modifiedSeconds, 0), 0o77777777777)), into: &header, at: 136, width: 12)
        header[156] = UInt8(ascii: "x")
        put(Array("ustar".utf8) + [0], into: &header, at: 257, width: 6)
        put(Array("00".utf8), into: &header, at: 263, width: 2)
        seal(&header)
        return header + records + [UInt8](repeating: 0, count: padding(after: UInt64(records.count)))
    }

    /// Splits a name too long for the name field into ustar's prefix and name at a `/`;
    /// nil when no split fits. A short name is all name.
    static func split(_ name: [UInt8]) -> (prefix: [UInt8], rest: [UInt8])? {
        if name.count <= 100 { return ([], name) }
        let lowest = max(1, name.count - 101)
        guard lowest <= min(155, name.count - 2) else { return nil }
        for index in lowest...min(155, name.count - 2) where name[index] == slash {
            return (Array(name[..<index]), Array(name[(index + 1)...]))
        }
        return nil
    }

    private static func put(_ bytes: [UInt8], into header: inout [UInt8], at offset: Int, width: Int) {
        for (position, byte) in bytes.prefix(width).enumerated() { header[offset + position] = byte }
    }

    /// Writes `value` as zero-padded octal ending in NUL; false (field left empty) when it
    /// does not fit in `width - 1` digits.
    @discardableResult
    private static func putOctal(_ value: UInt64, into header: inout [UInt8], at offset: Int, width: Int) -> Bool {
        let digits = width - 1
        guard value >> UInt64(3 * digits) == 0 else { return false }
        var remaining = value
        for position in stride(from: digits - 1, through: 0, by: -1) {
            header[offset + position] = UInt8(ascii: "0") + UInt8(remaining & 7)
            remaining >>= 3
        }
        header[offset + digits] = 0
        return true
    }

    /// Fills in the checksum: the sum of the header's bytes with the field itself as spaces,
    /// six octal digits, NUL, space.
    private static func seal(_ header: inout [UInt8]) {
        for position in 148..<156 { header[position] = UInt8(ascii: " ") }
        let sum = header.reduce(UInt64(0)) { $0 + UInt64($1) }
        putOctal(sum, into: &header, at: 148, width: 7)
        header[155] = UInt8(ascii: " ")
    }
}
