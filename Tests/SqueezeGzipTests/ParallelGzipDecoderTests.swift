@testable import SqueezeGzip
import Testing

struct ParallelGzipDecoderTests {
    /// Small chunks, so a member of a few hundred KB spreads over many.
    private static let decoder = ParallelGzipDecoder(threads: 3, chunkBytes: 16 << 10, minimumBytes: 0)

    static func decode(_ gzip: [UInt8], with decoder: ParallelGzipDecoder = decoder) throws -> (bytes: [UInt8], tally: ParallelGzipDecoder.Tally) {
        let (output, tally) = try decodeAll(gzip, with: decoder)
        #expect(tally.uncompressed == UInt64(output.count))
        return (output, tally)
    }

    /// `gzip` decoded from memory by `decoder`: its bytes and its tally.
    static func decodeAll(_ gzip: [UInt8], with decoder: ParallelGzipDecoder) throws -> (bytes: [UInt8], tally: ParallelGzipDecoder.Tally) {
        var output: [UInt8] = []
        let tally = try decoder.decompress(size: UInt64(gzip.count), read: { offset, buffer in
            guard offset < UInt64(gzip.count) else { return 0 }
            let part = gzip[Int(offset)..<min(gzip.count, Int(offset) + buffer.count)]
            buffer.copyBytes(from: part)
            return part.count
        }, into: { output.append(contentsOf: $0) })
        return (output, tally)
    }

    private static func member(_ data: [UInt8], level: Int, blockSize: Int = 8192) throws -> [UInt8] {
        try GzipMember.compress(data, blockSize: blockSize, setting: LevelTable.setting(forLevel: level), header: GzipMemberTests.header)
    }

    @Test("squeeze's members at levels 2-9 decode chunk by chunk on their own; level 1, primed with the window, in order; level 0 (stored blocks, no markers) as one chunk", arguments: [0, 1, 2, 6, 9])
    func squeezeMembers(level: Int) throws {
        let data = DataKind.text.bytes(count: 600_000) + DataKind.random.bytes(count: 100_000) + DataKind.zeros.bytes(count: 200_000)
        let (bytes, tally) = try Self.decode(Self.member(data, level: level))
        #expect(bytes == data)
        if level == 0 {
            #expect(tally.chunksAlone + tally.chunksInOrder == 1, "\(tally)")
        } else if level == 1 {
            #expect(tally.chunksInOrder > 1, "\(tally)")
        } else {
            #expect(tally.chunksAlone > 3 && tally.chunksInOrder == 0, "level \(level): \(tally)")
        }
    }

    @Test("other compressors' files decode the same: gzip (no markers), pigz (markers, blocks primed), several members with padding")
    func foreignFiles() throws {
        let data = DataKind.text.bytes(count: 900_000)
        for tool in [["/usr/bin/gzip", "-6", "-c"], ["/usr/bin/pigz", "-6", "-b", "32", "-c"]] {
            let gzip = try ExternalTool.run(tool, input: data)
            let (bytes, tally) = try Self.decode(gzip)
            #expect(bytes == data, "\(tool)")
            // pigz's chunks need the window before them: inflated in order, whole (libdeflate).
            if tool[0].hasSuffix("pigz") { #expect(tally.chunksInOrderWhole > 0 && tally.chunksAlone <= 1, "\(tally)") }
        }
        let squeezed = try Self.member(data, level: 6)
        let joined = squeezed + (try ExternalTool.run(["/usr/bin/gzip", "-c"], input: data)) + squeezed + [0, 0, 0]
        #expect(try Self.decode(joined).bytes == data + data + data)
        #expect(throws: ZlibError.self) { try Self.decode(squeezed + [0x41]) }
    }

    @Test("a chunk far longer than a chunk should be (gzip's file: no markers at all) is not read whole by a thread: the in-order pass reads it in pieces")
    func chunkWithoutMarkers() throws {
        let data = DataKind.text.bytes(count: 900_000)
        let (bytes, tally) = try Self.decode(try ExternalTool.run(["/usr/bin/gzip", "-6", "-c"], input: data))
        #expect(bytes == data)
        #expect(tally.chunksAlone == 0 && tally.chunksInOrder == 1, "\(tally)")
    }

    @Test("a marker across two of the search's reads (64 KiB each) is found: searches whose first read ends 0 to 6 bytes before a marker's end", arguments: -6...0)
    func markerAcrossReads(shift: Int) throws {
        // Incompressible: stored blocks of 150 KB, whose ends are the only markers, far apart.
        var rng = SplitMix64(seed: 11)
        let data = (0..<600_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let gzip = try Self.member(data, level: 6, blockSize: 150_000)
        let dataStart = try #require(ParallelGzipDecoder.headerLength(gzip))
        let markerEnds = (dataStart..<gzip.count - 3).filter { gzip[$0] == 0 && gzip[$0 + 1] == 0 && gzip[$0 + 2] == 0xff && gzip[$0 + 3] == 0xff }.map { $0 + 4 }
        let first = try #require(markerEnds.first { $0 > dataStart + 70_000 })
        // The first search starts chunkBytes after the data's start and reads 64 KiB at a time:
        // its first read ends `-shift` bytes before the marker's end (inside it for -1 to -3).
        let chunkBytes = first - 65_536 + shift - dataStart
        // The chunks the rule makes: at the first marker wholly inside each search's range.
        var chunks = 1
        var target = dataStart + chunkBytes
        while target + 8 < gzip.count {
            if let end = markerEnds.first(where: { $0 - 4 >= target && $0 <= min(gzip.count - 8, target + chunkBytes) }) {
                chunks += 1
                target = end + chunkBytes
            } else {
                target += chunkBytes
            }
        }
        let decoder = ParallelGzipDecoder(threads: 2, searchedChunkBytes: chunkBytes, minimumBytes: 0)
        let (bytes, tally) = try Self.decode(gzip, with: decoder)
        #expect(bytes == data)
        #expect(chunks >= 3 && tally.chunksAlone + tally.chunksInOrder == chunks, "\(tally), expected \(chunks) chunks")
    }

    @Test("markers inside stored data (level 0 of data full of 00 00 FF FF) are not taken for boundaries")
    func falseMarkers() throws {
        var data: [UInt8] = []
        var rng = SplitMix64(seed: 3)
        while data.count < 400_000 {
            data += rng.next() % 3 == 0 ? [0, 0, 0xff, 0xff] : [UInt8(truncatingIfNeeded: rng.next())]
        }
        for level in [0, 6] {
            let (bytes, tally) = try Self.decode(Self.member(data, level: level, blockSize: 100_000))
            #expect(bytes == data, "level \(level): \(tally)")
        }
    }

    @Test("a pigz file with false markers in its stored blocks: the chunks in order cut at them are refused whole and streamed, and the rest is inflated whole again after them")
    func falseMarkersInOrder() throws {
        // Noise with a marker every ~700 bytes goes into stored blocks; text around it does not.
        var rng = SplitMix64(seed: 8)
        var noise: [UInt8] = []
        while noise.count < 150_000 { noise += rng.next() % 700 == 0 ? [0, 0, 0xff, 0xff] : [UInt8(truncatingIfNeeded: rng.next())] }
        // Little text before the noise (at most 5 chunks), much after it (about 15).
        let data = DataKind.text.bytes(count: 150_000) + noise + DataKind.text.bytes(count: 800_000)
        let gzip = try ExternalTool.run(["/usr/bin/pigz", "-6", "-b", "32", "-c"], input: data)
        let (bytes, tally) = try Self.decode(gzip)
        #expect(bytes == data)
        let streamed = tally.chunksInOrder - tally.chunksInOrderWhole
        #expect(streamed > 5 && tally.chunksInOrderWhole > 10, "\(tally)")
    }

    @Test("truncated, a wrong CRC or length, a flipped byte, 300 random mutations: refused wherever zlib refuses, never other bytes")
    func damaged() throws {
        let data = DataKind.text.bytes(count: 300_000)
        let good = try Self.member(data, level: 6)
        var crc = good
        crc[crc.count - 8] ^= 1
        var length = good
        length[length.count - 2] ^= 1
        for bad in [Array(good.dropLast(5)), Array(good.prefix(good.count / 2)), crc, length] {
            #expect(throws: ZlibError.self) { try Self.decode(bad) }
        }
        var rng = SplitMix64(seed: 0xDEC0DE)
        // A squeeze member cut at markers, one cut at its table (its chunks inflated whole by
        // libdeflate), and a pigz file (chunks in order, whole with their window).
        let members = [
            ("markers", good),
            ("table", try GzipOffsetTableTests.member(data, level: 6)),
            ("pigz", try ExternalTool.run(["/usr/bin/pigz", "-6", "-b", "32", "-c"], input: data)),
        ]
        for (name, member) in members {
            for round in 0..<300 {
                var bytes = member
                for _ in 0...(rng.next() % 3) { bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8)) }
                let reference = try? GzipDecoder.decompress(bytes)
                let decoded = try? Self.decode(bytes).bytes
                #expect(decoded == reference, "\(name), round \(round)")
            }
        }
    }

    @Test("one thread, or a file below the minimum, is one stream")
    func oneStream() throws {
        let data = DataKind.text.bytes(count: 200_000)
        let gzip = try Self.member(data, level: 6)
        for decoder in [ParallelGzipDecoder(threads: 1, chunkBytes: 16 << 10, minimumBytes: 0), ParallelGzipDecoder(threads: 4)] {
            let (bytes, tally) = try Self.decode(gzip, with: decoder)
            #expect(bytes == data && tally.chunksAlone == 0 && tally.chunksInOrder == 1)
        }
    }

    @Test("strict (zlib, for -t and squeeze test): chunks of a table decode alone and right; other files the same; 300 mutations accepted exactly where zlib accepts; one member means nothing after it")
    func strict() throws {
        let decoder = ParallelGzipDecoder(threads: 3, chunkBytes: 16 << 10, minimumBytes: 0, strict: true, multipleMembers: false)
        let data = DataKind.text.bytes(count: 600_000) + DataKind.random.bytes(count: 100_000) + DataKind.zeros.bytes(count: 200_000)
        let table = try GzipMember.compress(data, blockSize: 32 << 10, setting: LevelTable.setting(forLevel: 6), header: GzipMemberTests.header, offsetTable: true)
        let (bytes, tally) = try Self.decode(table, with: decoder)
        #expect(bytes == data)
        #expect(tally.usedTable && tally.tableDefect == nil && tally.chunksAlone > 3 && tally.chunksInOrder == 0, "\(tally)")
        for gzip in [try Self.member(data, level: 6), try Self.member(data, level: 1), try ExternalTool.run(["/usr/bin/pigz", "-6", "-b", "32", "-c"], input: data)] {
            #expect(try Self.decode(gzip, with: decoder).bytes == data)
        }
        #expect(throws: ZlibError.self) { try Self.decode(table + table, with: decoder) }
        var rng = SplitMix64(seed: 0x5791C7)
        for round in 0..<300 {
            var mutated = table
            for _ in 0...(rng.next() % 3) { mutated[Int(rng.next() % UInt64(mutated.count))] ^= UInt8(1 << (rng.next() % 8)) }
            let reference = try? GzipDecoder.decompress(mutated)
            #expect((try? Self.decode(mutated, with: decoder).bytes) == reference, "round \(round)")
        }
    }
}
