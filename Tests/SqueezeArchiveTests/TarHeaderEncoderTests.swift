import Testing
@testable import SqueezeArchive

/// The pax writer, read back field by field as POSIX defines them.
@Suite("tar headers")
struct TarHeaderEncoderTests {
    /// A ustar field as text, up to its first NUL.
    private static func field(_ header: ArraySlice<UInt8>, _ offset: Int, _ width: Int) -> [UInt8] {
        let start = header.startIndex + offset
        return Array(header[start..<start + width].prefix { $0 != 0 })
    }

    private static func octal(_ header: ArraySlice<UInt8>, _ offset: Int, _ width: Int) -> UInt64? {
        UInt64(String(decoding: field(header, offset, width).filter { $0 != 32 }, as: UTF8.self), radix: 8)
    }

    /// Whether the checksum holds: the sum of the bytes with the field read as spaces.
    private static func checksumHolds(_ header: ArraySlice<UInt8>) -> Bool {
        var sum: UInt64 = 0
        for (position, byte) in header.enumerated() { sum += (148..<156).contains(position) ? 32 : UInt64(byte) }
        return octal(header, 148, 8) == sum
    }

    /// The pax records of an extended header: key to value bytes, each record's length checked.
    private static func records(_ data: ArraySlice<UInt8>) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        var rest = data[...]
        while let space = rest.firstIndex(of: 32), let length = Int(String(decoding: rest[rest.startIndex..<space], as: UTF8.self)) {
            let record = rest[rest.startIndex..<rest.startIndex + length]
            #expect(record.last == 10, "record ends with a newline where its length says")
            let body = record[(space + 1)..<(record.endIndex - 1)]
            let equals = body.firstIndex(of: UInt8(ascii: "=")) ?? body.endIndex
            result[String(decoding: body[body.startIndex..<equals], as: UTF8.self)] = Array(body[(equals + 1)...])
            rest = rest[(rest.startIndex + length)...]
        }
        #expect(rest.allSatisfy { $0 == 0 }, "only padding after the records")
        return result
    }

    @Test("a short entry is one ustar block: fields, magic, checksum")
    func ustarOnly() {
        let entry = TarEntry(
            name: Array("dir/file.txt".utf8), kind: .regular, permissions: 0o4755, owner: 1000, group: 100,
            userName: Array("ann".utf8), groupName: Array("users".utf8), size: 12_345, modifiedSeconds: 1_700_000_000)
        let header = TarHeaderEncoder.encode(entry)
        #expect(header.count == 512)
        let block = header[...]
        #expect(Self.field(block, 0, 100) == Array("dir/file.txt".utf8))
        #expect(Self.octal(block, 100, 8) == 0o4755)
        #expect(Self.octal(block, 108, 8) == 1000)
        #expect(Self.octal(block, 116, 8) == 100)
        #expect(Self.octal(block, 124, 12) == 12_345)
        #expect(Self.octal(block, 136, 12) == 1_700_000_000)
        #expect(header[156] == UInt8(ascii: "0"))
        #expect(Array(header[257..<265]) == Array("ustar\u{0}00".utf8))
        #expect(Self.field(block, 265, 32) == Array("ann".utf8))
        #expect(Self.field(block, 297, 32) == Array("users".utf8))
        #expect(Self.checksumHolds(block))
    }

    @Test("a name of up to 255 bytes is split at a slash into prefix and name; a directory gets its slash")
    func split() {
        let name = Array((String(repeating: "p", count: 120) + "/" + String(repeating: "n", count: 90)).utf8)
        let header = TarHeaderEncoder.encode(TarEntry(name: name, kind: .directory, permissions: 0o755))
        #expect(header.count == 512)
        #expect(Self.field(header[...], 345, 155) == Array(String(repeating: "p", count: 120).utf8))
        #expect(Self.field(header[...], 0, 100) == Array((String(repeating: "n", count: 90) + "/").utf8))
        #expect(header[156] == UInt8(ascii: "5"))
        #expect(TarHeaderEncoder.split(Array(String(repeating: "x", count: 101).utf8)) == nil)
    }

    @Test("what ustar cannot hold goes in pax records: long name and target, big ids and size, fractions, negative times")
    func paxRecords() throws {
        let name = Array(("d/" + String(repeating: "n", count: 150)).utf8)
        let target = Array(String(repeating: "t", count: 101).utf8)
        let entry = TarEntry(
            name: name, kind: .symbolicLink, permissions: 0o777, owner: 4_000_000, group: 7, userName: Array(String(repeating: "u", count: 40).utf8),
            modifiedSeconds: -2, modifiedNanoseconds: 500_000_000, linkTarget: target)
        let header = TarHeaderEncoder.encode(entry)
        #expect(header.count == 3 * 512)
        #expect(header[156] == UInt8(ascii: "x"))
        #expect(Self.checksumHolds(header[0..<512]) && Self.checksumHolds(header[1024..<1536]))
        let size = try #require(Self.octal(header[0..<512], 124, 12))
        let records = Self.records(header[512..<512 + Int(size)])
        #expect(records["path"] == name)
        #expect(records["linkpath"] == target)
        #expect(records["uid"] == Array("4000000".utf8))
        #expect(records["gid"] == nil)
        #expect(records["mtime"] == Array("-1.5".utf8))
        #expect(records["uname"] == Array(String(repeating: "u", count: 40).utf8))
        #expect(records["hdrcharset"] == nil)
        #expect(header[1024 + 156] == UInt8(ascii: "2"))
    }

    @Test("a name that is not UTF-8 is kept byte for byte and marked BINARY; sizes of 8 GiB and more")
    func binaryNamesAndHugeSizes() throws {
        let name = [UInt8(ascii: "a"), 0xff, 0x0a] + Array(String(repeating: "z", count: 120).utf8)
        let entry = TarEntry(name: name, kind: .regular, permissions: 0o644, size: 1 << 33, modifiedSeconds: 5)
        let header = TarHeaderEncoder.encode(entry)
        let size = try #require(Self.octal(header[0..<512], 124, 12))
        let records = Self.records(header[512..<512 + Int(size)])
        #expect(records["hdrcharset"] == Array("BINARY".utf8))
        #expect(records["path"] == name)
        #expect(records["size"] == Array(String(1 << 33).utf8))
        #expect(records["mtime"] == nil)
    }

    @Test("a record's length counts its own digits, also where they carry to one more digit")
    func recordLengths() {
        for valueLength in 80...110 {
            var records = PaxRecords()
            records.add(name: "path", [UInt8](repeating: UInt8(ascii: "v"), count: valueLength))
            let encoded = records.encoded
            let digits = encoded.prefix { $0 != 32 }
            #expect(Int(String(decoding: digits, as: UTF8.self)) == encoded.count, "value of \(valueLength) bytes")
        }
    }

    @Test("times: whole, fraction without trailing zeros, before the epoch")
    func times() {
        #expect(PaxRecords.time(seconds: 10, nanoseconds: 0) == "10")
        #expect(PaxRecords.time(seconds: 10, nanoseconds: 120_000_000) == "10.12")
        #expect(PaxRecords.time(seconds: 10, nanoseconds: 1) == "10.000000001")
        #expect(PaxRecords.time(seconds: -1, nanoseconds: 250_000_000) == "-0.75")
        #expect(PaxRecords.time(seconds: -3, nanoseconds: 0) == "-3")
    }
}
