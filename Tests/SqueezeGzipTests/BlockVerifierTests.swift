import Foundation
import SqueezeGzip
import Testing

/// The result check: every engine's honest blocks pass, and each way a worker's answer can be
/// wrong is refused.
struct BlockVerifierTests {
    private static let size = 100_000

    /// A block compressed honestly: the second of a file, primed with the 32 KiB before it
    /// when its engine takes a dictionary.
    private struct Sample {
        var data: [UInt8]
        var dictionary: [UInt8]
        var block: CompressedBlock
        var claim: BlockClaim
    }

    private func sample(_ engine: EngineCase, _ kind: DataKind, isLast: Bool, count: Int = size) throws -> Sample {
        let before = kind.bytes(count: 40_000, seed: 7)
        let data = kind.bytes(count: count, seed: 8)
        let dictionary = engine.usesDictionary ? Array(before.suffix(32_768)) : []
        let block = try data.withUnsafeBytes { input in
            try dictionary.withUnsafeBytes { try engine.compressor().compress(input, dictionary: $0, isLast: isLast) }
        }
        return Sample(data: data, dictionary: dictionary, block: block, claim: BlockClaim(crc: block.crc, rawLength: data.count, isLast: isLast))
    }

    private func check(_ bytes: [UInt8], dictionary: [UInt8], claim: BlockClaim) throws -> BlockDefect? {
        let verifier = try BlockVerifier()
        do {
            try bytes.withUnsafeBytes { deflate in
                try dictionary.withUnsafeBytes { dictionary in
                    try verifier.verify(deflate, dictionary: dictionary, claim: claim)
                }
            }
            return nil
        } catch {
            return error as? BlockDefect ?? BlockDefect("\(error)")
        }
    }

    @Test(arguments: EngineCase.allCases, [false, true])
    func honestBlocksOfEveryEnginePass(engine: EngineCase, isLast: Bool) throws {
        for kind in DataKind.allCases {
            let s = try sample(engine, kind, isLast: isLast)
            #expect(try check(s.block.bytes, dictionary: s.dictionary, claim: s.claim) == nil, "\(engine) \(kind)")
        }
    }

    @Test(arguments: CompressionEngine.allCases, [false, true])
    func emptyBlocksPass(engine: CompressionEngine, isLast: Bool) throws {
        let compressor = try BlockCompressor(setting: LevelTable.setting(forLevel: 6, engine: engine))
        let block = try compressor.compress(UnsafeRawBufferPointer(start: nil, count: 0), dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: isLast)
        #expect(try check(block.bytes, dictionary: [], claim: BlockClaim(crc: 0, rawLength: 0, isLast: isLast)) == nil)
    }

    /// A gzip member holding the sample's dictionary (as a stored block), then `bytes` in the
    /// sample's place, ended and trailed as the sample claims: what a published file would be.
    private func member(of s: Sample, with bytes: [UInt8]) -> [UInt8] {
        var member = GzipHeader(fileName: nil, modificationTime: 0, level: 6).encoded()
        if !s.dictionary.isEmpty { member += StoredBlocks.header(length: s.dictionary.count, isFinal: false) + s.dictionary }
        member += bytes
        if !s.claim.isLast { member += [0x01, 0x00, 0x00, 0xFF, 0xFF] }
        let crc = CRC32.combine(CRC32.checksum(s.dictionary), s.claim.crc, secondLength: Int64(s.claim.rawLength))
        return member + GzipTrailer(crc: crc, inputLength: UInt64(s.dictionary.count + s.claim.rawLength)).encoded()
    }

    /// Soundness, the property that matters: whatever passes makes a member `gzip -t` accepts,
    /// holding the data. A changed padding bit, or a level-0 block cut before its redundant
    /// sync marker, is still a valid block and may pass; most damage must not.
    private func expectSound(_ s: Sample, mutations: [(String, [UInt8])], engine: EngineCase) throws {
        var refused = 0
        for (name, bytes) in mutations {
            if try check(bytes, dictionary: s.dictionary, claim: s.claim) == nil {
                try SystemGzip.expectValid(member(of: s, with: bytes), original: s.dictionary + s.data)
            } else {
                refused += 1
            }
            _ = name
        }
        #expect(refused * 2 > mutations.count, "\(engine): only \(refused) of \(mutations.count) refused")
    }

    @Test(arguments: EngineCase.allCases)
    func aFlippedByteIsRefusedOrHarmless(engine: EngineCase) throws {
        for isLast in [false, true] {
            let s = try sample(engine, .text, isLast: isLast)
            let count = s.block.bytes.count
            // Every position would take long in a debug build; a spread of them covers headers,
            // symbols, stored data and the ending.
            let positions = Set([0, 1, 2, count / 3, count / 2, count - 6, count - 5, count - 3, count - 2, count - 1])
            try expectSound(s, mutations: positions.sorted().map { position in
                var bytes = s.block.bytes
                bytes[position] ^= 0xFF
                return ("byte \(position)", bytes)
            }, engine: engine)
        }
    }

    @Test(arguments: EngineCase.allCases)
    func aTruncatedBlockIsRefusedOrHarmless(engine: EngineCase) throws {
        for isLast in [false, true] {
            let s = try sample(engine, .text, isLast: isLast)
            try expectSound(s, mutations: [1, 2, 4, 5, 6, s.block.bytes.count / 2].map { cut in
                ("cut \(cut)", Array(s.block.bytes.dropLast(cut)))
            }, engine: engine)
        }
    }

    @Test(arguments: EngineCase.allCases)
    func aWrongCRCOrLengthIsRefused(engine: EngineCase) throws {
        let s = try sample(engine, .text, isLast: false)
        var claim = s.claim
        claim.crc ^= 1
        #expect(try check(s.block.bytes, dictionary: s.dictionary, claim: claim)?.reason.contains("CRC") == true)
        for length in [s.claim.rawLength - 1, s.claim.rawLength + 1, 0] {
            claim = s.claim
            claim.rawLength = length
            #expect(try check(s.block.bytes, dictionary: s.dictionary, claim: claim) != nil, "\(engine) length \(length)")
        }
    }

    @Test(arguments: EngineCase.allCases)
    func aBlockWhoseLastFlagIsWrongIsRefused(engine: EngineCase) throws {
        // A final block where the file goes on would end the member early.
        let last = try sample(engine, .text, isLast: true)
        var claim = last.claim
        claim.isLast = false
        #expect(try check(last.block.bytes, dictionary: last.dictionary, claim: claim) != nil)
        // A non-final one where the file ends would leave the member unfinished.
        let middle = try sample(engine, .text, isLast: false)
        claim = middle.claim
        claim.isLast = true
        #expect(try check(middle.block.bytes, dictionary: middle.dictionary, claim: claim) != nil)
    }

    @Test(arguments: EngineCase.representative)
    func aMissingOrWrongDictionaryIsRefused(engine: EngineCase) throws {
        let s = try sample(engine, .text, isLast: false)
        guard !s.dictionary.isEmpty else { return }
        #expect(try check(s.block.bytes, dictionary: [], claim: s.claim) != nil)
        #expect(try check(s.block.bytes, dictionary: s.dictionary.reversed(), claim: s.claim) != nil)
    }

    /// What a verifier that is not told the claim reports: the CRC of the decoded bytes, and
    /// for a whole member, a trailer that must match them.
    @Test(arguments: EngineCase.representative)
    func decodeReportsTheCRC(engine: EngineCase) throws {
        let honest = try sample(engine, .text, isLast: false)
        let verifier = try BlockVerifier()
        let crc = try Array(honest.block.bytes).withUnsafeBytes { deflate in
            try honest.dictionary.withUnsafeBytes { try verifier.decode(deflate, dictionary: $0, rawLength: honest.data.count, isLast: false) }
        }
        #expect(crc == honest.claim.crc)
        #expect(throws: BlockDefect.self) {
            try Array(honest.block.bytes).withUnsafeBytes { deflate in
                try honest.dictionary.withUnsafeBytes { try verifier.decode(deflate, dictionary: $0, rawLength: honest.data.count + 1, isLast: false) }
            }
        }
    }

    @Test func trailingBytesAndGarbageAreRefused() throws {
        let s = try sample(.libdeflate6, .text, isLast: true)
        #expect(try check(s.block.bytes + [0], dictionary: [], claim: s.claim) != nil)
        let middle = try sample(.isal3, .text, isLast: false)
        // A second empty stored block is harmless, but bytes that are not a whole block are not.
        #expect(try check(middle.block.bytes + [0x00], dictionary: middle.dictionary, claim: middle.claim) != nil)
        var rng = SplitMix64(seed: 99)
        for length in [0, 1, 2, 5, 100, 10_000] {
            let garbage = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            for isLast in [false, true] {
                #expect(try check(garbage, dictionary: [], claim: BlockClaim(crc: 0x1234_5678, rawLength: 4096, isLast: isLast)) != nil)
            }
        }
    }

    @Test func aFinalBlockHiddenInsideANonFinalOneIsRefused() throws {
        // The first half of the data as a final block, then the rest non-final: inflating the
        // pair alone stops after the first, so the claimed length is never reached.
        let data = DataKind.text.bytes(count: 20_000, seed: 3)
        let compressor = try EngineCase.zlib6.compressor()
        let head = try data[..<10_000].withUnsafeBytes { try compressor.compress($0, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: true) }
        let tail = try data[10_000...].withUnsafeBytes { try compressor.compress($0, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: false) }
        let claim = BlockClaim(crc: CRC32.checksum(data), rawLength: data.count, isLast: false)
        #expect(try check(head.bytes + tail.bytes, dictionary: [], claim: claim) != nil)
    }

    @Test(arguments: [EngineCase.libdeflate6, .zlib6, .stored0])
    func wholeMembersAreCheckedWithTheirHeaderAndTrailer(engine: EngineCase) throws {
        // A one-block file: its own first block, with no dictionary.
        let data = DataKind.text.bytes(count: Self.size, seed: 8)
        let block = try data.withUnsafeBytes { try engine.compressor().compress($0, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: true) }
        let s = Sample(data: data, dictionary: [], block: block, claim: BlockClaim(crc: block.crc, rawLength: data.count, isLast: true))
        let header = GzipHeader(fileName: Array("a.log".utf8), modificationTime: 1, level: 6).encoded()
        let trailer = GzipTrailer(crc: s.block.crc, inputLength: UInt64(s.data.count)).encoded()
        let verifier = try BlockVerifier()
        func member(_ bytes: [UInt8]) -> BlockDefect? {
            do {
                try bytes.withUnsafeBytes { bytes in try verifier.verifyMember(bytes, header: header, claim: s.claim) }
                return nil
            } catch { return error as? BlockDefect ?? BlockDefect("\(error)") }
        }
        #expect(member(header + s.block.bytes + trailer) == nil)
        #expect(member(header + s.block.bytes + trailer.reversed()) != nil)
        #expect(member(GzipHeader(fileName: Array("b.log".utf8), modificationTime: 1, level: 6).encoded() + s.block.bytes + trailer) != nil)
        #expect(member(header + s.block.bytes.dropLast() + trailer) != nil)
        #expect(member(header) != nil)
    }

    /// How fast one core verifies, for the docs: a 64 MiB text block set compressed at the
    /// default level, checked block by block. Prints MB/s of uncompressed data; not a pass bar.
    @Test func throughputOnOneCore() throws {
        let blockSize = 512 << 10
        let compressor = try EngineCase.libdeflate6.compressor()
        let data = DataKind.text.bytes(count: 8 * blockSize, seed: 5)
        var blocks: [CompressedBlock] = []
        for start in stride(from: 0, to: data.count, by: blockSize) {
            blocks.append(try data[start..<start + blockSize].withUnsafeBytes {
                try compressor.compress($0, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: false)
            })
        }
        let verifier = try BlockVerifier()
        let clock = ContinuousClock()
        let rounds = 8
        let elapsed = try clock.measure {
            for _ in 0..<rounds {
                for block in blocks {
                    try block.bytes.withUnsafeBytes { deflate in
                        try verifier.verify(deflate, dictionary: UnsafeRawBufferPointer(start: nil, count: 0),
                                            claim: BlockClaim(crc: block.crc, rawLength: block.rawLength, isLast: false))
                    }
                }
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let megabytes = Double(rounds * data.count) / 1e6
        print("BlockVerifier: \(Int(megabytes / seconds)) MB/s of uncompressed data on one core (libdeflate -6 text, 512 KiB blocks)")
        #expect(seconds > 0)
    }
}

/// Encodings some decoders tolerate and gzip refuses must be refused too: what passes the
/// check is published.
struct BlockVerifierStrictnessTests {
    private func refusal(_ deflate: [UInt8], count: Int) throws -> BlockDefect? {
        let data = [UInt8](repeating: 65, count: count)
        let verifier = try BlockVerifier()
        do {
            try deflate.withUnsafeBytes {
                try verifier.verify($0, dictionary: UnsafeRawBufferPointer(start: nil, count: 0),
                                    claim: BlockClaim(crc: CRC32.checksum(data), rawLength: count, isLast: true))
            }
            return nil
        } catch {
            return error as? BlockDefect ?? BlockDefect("\(error)")
        }
    }

    private func gzipAccepts(_ deflate: [UInt8], count: Int) throws -> Bool {
        let data = [UInt8](repeating: 65, count: count)
        let member = GzipHeader(fileName: nil, modificationTime: 0, level: 6).encoded() + deflate
            + GzipTrailer(crc: CRC32.checksum(data), inputLength: UInt64(count)).encoded()
        let path = "/tmp/squeeze-strict-\(count)-\(deflate.count).gz"
        try Data(member).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try SystemGzip.run(["-t", path]).status == 0
    }

    @Test func anIncompleteLiteralCodeIsRefusedAsGzipRefusesIt() throws {
        // 'A' and end-of-block with 2 bits each use half the code space: incomplete.
        let incomplete = DeflateBits.dynamicBlock(repeatingA: 1000, literalLengths: [65: 2, 256: 2])
        #expect(try !gzipAccepts(incomplete, count: 1000))
        #expect(try refusal(incomplete, count: 1000) != nil)
        // The same block with the code completed ('B' takes the other half) is valid for both,
        // so the refusal above is for the code, not for a mistake in building the block.
        let complete = DeflateBits.dynamicBlock(repeatingA: 1000, literalLengths: [66: 1, 65: 2, 256: 2])
        #expect(try gzipAccepts(complete, count: 1000))
        #expect(try refusal(complete, count: 1000) == nil)
    }
}
