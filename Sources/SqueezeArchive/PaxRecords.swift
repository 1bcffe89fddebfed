/// The records of a pax extended header: `LENGTH key=value\n`, where LENGTH counts the whole
/// record, its own digits included. Values are bytes; a name that is not UTF-8 is kept as it
/// is and the header says so with `hdrcharset=BINARY`, as POSIX provides.
struct PaxRecords {
    private var records: [(key: String, value: [UInt8], isName: Bool)] = []

    /// Whether there is nothing to say beyond the ustar header.
    var isEmpty: Bool { records.isEmpty }

    /// Adds a name-like record (path, linkpath, uname, gname): any bytes.
    mutating func add(name key: String, _ value: [UInt8]) {
        records.append((key, value, true))
    }

    /// Adds a record whose value is ASCII text (numbers, times).
    mutating func add(_ key: String, _ value: String) {
        records.append((key, Array(value.utf8), false))
    }

    /// The extended header's data, unpadded.
    var encoded: [UInt8] {
        var out: [UInt8] = []
        if records.contains(where: { $0.isName && String(validating: $0.value, as: UTF8.self) == nil }) {
            Self.append(key: "hdrcharset", value: Array("BINARY".utf8), to: &out)
        }
        for record in records { Self.append(key: record.key, value: record.value, to: &out) }
        return out
    }

    private static func append(key: String, value: [UInt8], to out: inout [UInt8]) {
        // " key=value\n" plus the length's own digits, which may carry it to one more digit.
        let body = key.utf8.count + value.count + 3
        var length = body + String(body).count
        if String(length).count != String(body).count { length = body + String(length).count }
        out += Array(String(length).utf8)
        out.append(UInt8(ascii: " "))
        out += Array(key.utf8)
        out.append(UInt8(ascii: "="))
        out += value
        out.append(UInt8(ascii: "\n"))
    }

    /// A time as pax writes it: seconds, then up to nine digits of fraction without trailing
    /// zeros. Before 1970 the value is negative as a whole: -1.5 is 1.5 s before the epoch.
    static func time(seconds: Int64, nanoseconds: Int64) -> String {
        let nanos = min(max(nanoseconds, 0), 999_999_999)
        guard nanos != 0 else { return String(seconds) }
        let (sign, whole, fraction) = seconds < 0
            ? ("-", UInt64(-(seconds + 1)), 1_000_000_000 - nanos)
            : ("", UInt64(seconds), nanos)
        var digits = String(fraction)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }
}
