@testable import SqueezeGzip
import Testing

/// libdeflate with a sentinel block against ISA-L's streaming inflate, which sees exactly where
/// its input leaves the stream: for any cut of a member's deflate data, the two must agree.
struct WholeChunkInflaterTests {
    /// What ISA-L makes of `input` with no window: its output's length and CRC-32 and how the
    /// input ended, or nil where it fails or ends mid-block.
    private static func reference(_ input: ArraySlice<UInt8>) -> DecodedChunk? {
        let buffer = ChunkBuffer(limit: 4 << 20, maxInput: 1)
        guard let inflater = try? RawInflater() else { return nil }
        do {
            try inflater.begin(window: UnsafeRawBufferPointer(start: nil, count: 0))
            guard let stop = try Array(input).withUnsafeBytes({ try inflater.run($0, into: buffer) }), stop != .inBlock else { return nil }
            return DecodedChunk(length: UInt64(buffer.count), crc: inflater.crc, stop: stop)
        } catch {
            return nil
        }
    }

    /// The same input through `WholeChunkInflater` (`inflater`, or a new one), and its output.
    private static func whole(_ input: ArraySlice<UInt8>, inflater: WholeChunkInflater? = nil) throws -> (chunk: DecodedChunk?, output: [UInt8]) {
        let inflater = try inflater ?? #require(WholeChunkInflater())
        let buffer = ChunkBuffer(limit: 4 << 20, maxInput: input.count + WholeChunkInflater.sentinelRoom)
        let room = try #require(buffer.input(input.count + WholeChunkInflater.sentinelRoom))
        room.copyBytes(from: input)
        let chunk = inflater.inflate(room, dataCount: input.count, into: buffer)
        return (chunk, Array(buffer.bytes))
    }

    private static func member(_ data: [UInt8], level: Int, blockSize: Int) throws -> (gzip: [UInt8], dataStart: Int) {
        let gzip = try GzipMember.compress(data, blockSize: blockSize, setting: LevelTable.setting(forLevel: level), header: GzipMemberTests.header)
        return (gzip, try #require(ParallelGzipDecoder.headerLength(gzip)))
    }

    /// Where sync-flush markers end in `bytes` after `from`.
    private static func markerEnds(_ bytes: [UInt8], from: Int) -> [Int] {
        (from..<bytes.count - 3).filter { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 0xff && bytes[$0 + 3] == 0xff }.map { $0 + 4 }
    }

    @Test("any cut of a member agrees with ISA-L: between blocks and at the final block the same bytes, CRC and stop; mid-block, refused, or a chunk that needs the window before it, nothing",
          arguments: [0, 1, 6, 9])
    func agreesWithStreamingInflate(level: Int) throws {
        // Text, noise, zeros and text full of false markers: stored, fixed and dynamic blocks.
        var rng = SplitMix64(seed: UInt64(level) + 5)
        var markers: [UInt8] = []
        while markers.count < 40_000 { markers += rng.next() % 4 == 0 ? [0, 0, 0xff, 0xff] : [UInt8(truncatingIfNeeded: rng.next())] }
        let data = DataKind.text.bytes(count: 120_000) + DataKind.random.bytes(count: 30_000) + markers + DataKind.zeros.bytes(count: 50_000)
        let (gzip, dataStart) = try Self.member(data, level: level, blockSize: 16 << 10)
        let deflateEnd = gzip.count - GzipTrailer.size
        let boundaries = Self.markerEnds(gzip, from: dataStart).filter { $0 < deflateEnd }
        try #require(boundaries.count > 5)
        // Starts: the data's start and a few markers (level 1's need the window before them).
        let starts = [dataStart] + boundaries.prefix(4)
        var ends = boundaries + [deflateEnd, deflateEnd + 3, gzip.count]
        for boundary in boundaries.prefix(12) { ends += [boundary - 1, boundary + 1, boundary - 5, boundary + 2] }
        // Level 0's blocks are stored blocks, byte-aligned without a marker: a header and 16 KiB.
        if level == 0 { ends += stride(from: dataStart + (16 << 10) + 5, to: deflateEnd, by: (16 << 10) + 5) }
        for _ in 0..<60 { ends.append(Int(rng.next() % UInt64(gzip.count - dataStart)) + dataStart) }
        var agreed = (chunks: 0, refused: 0)
        for start in starts {
            for end in ends where end > start && end <= gzip.count {
                let input = gzip[start..<end]
                let expected = Self.reference(input)
                let (got, output) = try Self.whole(input)
                // Whatever libdeflate takes, ISA-L takes alike; and it takes every chunk that
                // ISA-L takes and that ends with a sync flush. Others (ending between two of
                // libdeflate's own blocks by chance, or at the final block) it leaves to ISA-L.
                let closed = gzip[end - 4..<end].elementsEqual([0, 0, 0xff, 0xff])
                let final: Bool
                if case .final = expected?.stop { final = true } else { final = false }
                if got != nil || (closed && !final) {
                    #expect(got?.length == expected?.length && got?.crc == expected?.crc && got?.stop == expected?.stop,
                            "level \(level), bytes \(start)..<\(end): ISA-L \(String(describing: expected)), libdeflate \(String(describing: got))")
                }
                if let got {
                    #expect(UInt64(output.count) == got.length && CRC32.checksum(output) == got.crc)
                    agreed.chunks += 1
                } else {
                    agreed.refused += 1
                }
            }
        }
        // Both outcomes were seen, so the comparison was not one-sided (level 0's stored blocks
        // end without a marker: all left to ISA-L).
        #expect((level == 0 ? agreed.chunks == 0 : agreed.chunks > 10) && agreed.refused > 10, "level \(level): \(agreed)")
    }

    @Test("the sentinel, after a stored block's header, decodes to its random bytes and ends the stream (ISA-L agrees); each inflater has its own")
    func sentinelDecodes() throws {
        let first = try #require(WholeChunkInflater())
        let second = try #require(WholeChunkInflater())
        #expect(first.payload != second.payload && first.payload.count == 16)
        for inflater in [first, second] {
            // After the empty stored block's header, which the file's bytes hold.
            let decoded = try #require(Self.reference(([0x00] + inflater.sentinel)[...]))
            #expect(decoded.stop == .final(left: 0) && decoded.length == 16 && decoded.crc == CRC32.checksum(inflater.payload))
            #expect(inflater.sentinel.count == WholeChunkInflater.sentinelRoom + 4)
        }
    }

    @Test("a chunk cut just after a false marker in a stored block is refused, however many bytes the block has left, final or not, and even if they are the sentinel's own",
          arguments: [true, false])
    func falseMarkerInStoredBlock(final: Bool) throws {
        let inflater = try #require(WholeChunkInflater())
        var rng = SplitMix64(seed: 21)
        let noise = (0..<1_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        // What follows the false marker: the sentinel's bytes after the four it replaces (as
        // if the file had guessed them), then noise.
        let after = Array(inflater.sentinel.dropFirst(4)) + noise.prefix(20)
        // 16 left: a stored block that runs on over the sentinel's LEN, NLEN and random bytes
        // copies them out as its own data, and the empty final block after them ends it.
        for left in [0, 2, 14, 16, 18, 20, 22, 30] {
            let data = noise + [0, 0, 0xff, 0xff] + after.prefix(left)
            let length = UInt16(data.count)
            // One stored block: header 001 or 000, LEN, NLEN, the data; an empty final block after a non-final one.
            let stream = [final ? 0x01 : 0x00, UInt8(length & 0xff), UInt8(length >> 8), ~UInt8(length & 0xff), ~UInt8(length >> 8)] + data
                + (final ? [] : [0x03, 0x00])
            let cut = 5 + noise.count + 4
            #expect(try Self.whole(stream[..<cut], inflater: inflater).chunk == nil, "\(left) bytes left")
            guard final else { continue }
            // Closed by a marker of the sentinel's own and a trailer, the block decodes to the
            // data and ends the stream.
            let (chunk, output) = try Self.whole((stream + [0, 0, 0xff, 0xff])[...], inflater: inflater)
            #expect(chunk?.stop == .final(left: 4) && output == data, "\(left) bytes left")
        }
    }
}
