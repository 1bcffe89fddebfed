import SqueezeGzip
import Testing

/// The stream decoder inflates with ISA-L; zlib is the reference every gzip tool shares. These
/// tests hold the two to the same verdict: what zlib decodes, ISA-L decodes to the same bytes,
/// and what zlib refuses, the stream decoder refuses.
struct StreamDecoderAgreementTests {
    private static let rounds = 5000

    /// One member, fed in pieces of `piece` bytes; nil when the decoder refuses it.
    private static func decode(_ bytes: [UInt8], piece: Int, strict: Bool = false) -> [UInt8]? {
        try? GzipStreamDecoderTests.decode(bytes, piece: piece, multipleMembers: false, strict: strict)
    }

    /// Members made by other tools: gzip at several levels with a name in the header, and a
    /// header with every optional field (extra, name, comment, header CRC).
    private static func foreignMembers() throws -> [(name: String, bytes: [UInt8], original: [UInt8])] {
        let text = DataKind.text.bytes(count: 200_000)
        let random = DataKind.random.bytes(count: 70_000)
        var members: [(String, [UInt8], [UInt8])] = []
        for level in [1, 6, 9] {
            members.append(("gzip -\(level) text", try ExternalTool.run(["/usr/bin/gzip", "-\(level)", "-c"], input: text), text))
        }
        members.append(("gzip -6 random", try ExternalTool.run(["/usr/bin/gzip", "-6", "-c"], input: random), random))
        members.append(("gzip empty", try ExternalTool.run(["/usr/bin/gzip", "-c"], input: []), []))
        // FEXTRA, FNAME, FCOMMENT and FHCRC around a stored member gzip made.
        let plain = try ExternalTool.run(["/usr/bin/gzip", "-n", "-c"], input: text)
        var header: [UInt8] = [0x1f, 0x8b, 8, 0x1e, 0, 0, 0, 0, 0, 3]
        header += [6, 0, 0x53, 0x5a, 2, 0, 7, 9]  // XLEN 6: subfield "SZ" of 2 bytes
        header += Array("name.txt".utf8) + [0] + Array("a comment".utf8) + [0]
        let headerCRC = CRC32.checksum(header) & 0xffff
        header += [UInt8(headerCRC & 0xff), UInt8(headerCRC >> 8)]
        members.append(("every header field", header + plain.dropFirst(10), text))
        return members
    }

    @Test("members from gzip, with every optional header field, decode as zlib decodes them, in any pieces", arguments: [1, 3, 4096, 1 << 20])
    func foreign(piece: Int) throws {
        for member in try Self.foreignMembers() {
            #expect(try GzipDecoder.decompress(member.bytes) == member.original, "\(member.name): zlib")
            #expect(Self.decode(member.bytes, piece: piece) == member.original, "\(member.name)")
        }
    }

    @Test("an incomplete Huffman code, which gzip -t refuses: the strict decoder refuses it, the fast one gives the bytes its trailer vouches for")
    func incompleteCode() throws {
        let data = [UInt8](repeating: 65, count: 1000)
        func member(_ deflate: [UInt8]) -> [UInt8] {
            GzipHeader(fileName: nil, modificationTime: 0, level: 6).encoded() + deflate
                + GzipTrailer(crc: CRC32.checksum(data), inputLength: UInt64(data.count)).encoded()
        }
        let incomplete = member(DeflateBits.dynamicBlock(repeatingA: 1000, literalLengths: [65: 2, 256: 2]))
        let complete = member(DeflateBits.dynamicBlock(repeatingA: 1000, literalLengths: [66: 1, 65: 2, 256: 2]))
        #expect(Self.decode(incomplete, piece: 1 << 20, strict: true) == nil)
        #expect(Self.decode(incomplete, piece: 1 << 20) == data)
        #expect(Self.decode(complete, piece: 1 << 20, strict: true) == data)
        #expect(Self.decode(complete, piece: 1 << 20) == data)
    }

    @Test("a wrong length in the trailer is named apart from a wrong CRC")
    func lengthMessage() throws {
        let good = try GzipMember.compress(DataKind.text.bytes(count: 5000), blockSize: 65_536, setting: LevelTable.setting(forLevel: 6), header: GzipMemberTests.header)
        func message(_ bytes: [UInt8]) -> String? {
            do {
                let decoder = try GzipStreamDecoder(multipleMembers: false)
                try bytes.withUnsafeBytes { try decoder.feed($0) { _ in } }
                try decoder.finish()
                return nil
            } catch let error as ZlibError { return error.message } catch { return "\(error)" }
        }
        var length = good
        length[length.count - 2] ^= 1
        var crc = good
        crc[crc.count - 6] ^= 1
        #expect(message(length) == "incorrect length check")
        #expect(message(crc) == "incorrect data check")
        #expect(message(good) == nil)
    }

    @Test("5,000 mutated members: the stream decoder and zlib agree on every one (same bytes, or both refuse)")
    func mutations() throws {
        var rng = SplitMix64(seed: 0xA6EE)
        var sources = try Self.foreignMembers().map(\.bytes)
        for level in [0, 1, 2, 6, 9] {
            let data = DataKind.text.bytes(count: 3000 + level * 1000, seed: UInt64(level))
            sources.append(try GzipMember.compress(data, blockSize: 1024, setting: LevelTable.setting(forLevel: level), header: GzipMemberTests.header))
        }
        var refused = 0
        for round in 0..<Self.rounds {
            var bytes = sources[round % sources.count]
            switch rng.next() % 4 {
            case 0:  // flip bits
                for _ in 0...(rng.next() % 3) { bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8)) }
            case 1:  // overwrite a byte
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            case 2:  // cut short
                bytes.removeLast(1 + Int(rng.next() % UInt64(bytes.count - 1)))
            default:  // a run of random bytes
                let start = Int(rng.next() % UInt64(bytes.count))
                for index in start..<min(bytes.count, start + 1 + Int(rng.next() % 16)) { bytes[index] = UInt8(truncatingIfNeeded: rng.next()) }
            }
            let reference = try? GzipDecoder.decompress(bytes)
            let decoded = Self.decode(bytes, piece: [5, 1 << 20][round % 2], strict: round % 5 == 0)
            if reference == nil { refused += 1 }
            #expect(decoded == reference, "round \(round) \(bytes.prefix(24)) \(bytes.count): zlib \(reference.map { "\($0.count) bytes" } ?? "refused"), ISA-L \(decoded.map { "\($0.count) bytes" } ?? "refused")")
            if decoded != reference { break }
        }
        #expect(refused > Self.rounds / 2, "mutations should mostly break the member: \(refused)")
    }
}
