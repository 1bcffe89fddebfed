import Testing
@testable import SqueezeGzip

/// The verifier reads level-0 blocks itself (`StoredBlockRun`) instead of inflating them: it
/// must take exactly what zlib takes, to the same CRC, and leave everything else to zlib.
struct StoredBlockRunTests {
    /// What a verifier says of a block: the CRC it decoded to, or its defect.
    private enum Outcome: Equatable {
        case decoded(UInt32)
        case defect(String)
    }

    private static func outcome(_ verifier: BlockVerifier, _ bytes: [UInt8], rawLength: Int, isLast: Bool) -> Outcome {
        do {
            let crc = try bytes.withUnsafeBytes { deflate in
                try verifier.decode(deflate, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), rawLength: rawLength, isLast: isLast)
            }
            return .decoded(crc)
        } catch {
            return .defect((error as? BlockDefect)?.reason ?? "\(error)")
        }
    }

    private static func stored(_ data: [UInt8], engine: EngineCase, isLast: Bool) throws -> [UInt8] {
        try Array(data.withUnsafeBytes { try engine.compressor().compress($0, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: isLast) }.bytes)
    }

    @Test("level-0 blocks of every size are read in place, to their data's CRC, as zlib reads them",
          arguments: [EngineCase.stored0, .zlib0, .libdeflate0], [false, true])
    func honestStoredBlocks(engine: EngineCase, isLast: Bool) throws {
        let zlibOnly = try BlockVerifier(readsStoredBlocks: false)
        for count in [0, 1, 65_535, 65_536, 200_000, 1 << 20] {
            let data = DataKind.text.bytes(count: count, seed: 11)
            let bytes = try Self.stored(data, engine: engine, isLast: isLast)
            let crc = bytes.withUnsafeBytes { StoredBlockRun.checksum($0, rawLength: count, isLast: isLast) }
            #expect(crc == CRC32.checksum(data), "\(engine), \(count) bytes")
            #expect(Self.outcome(zlibOnly, bytes, rawLength: count, isLast: isLast) == .decoded(CRC32.checksum(data)))
        }
    }

    @Test("a block with a compressed deflate block in it is left to zlib")
    func compressedBlocksGoToZlib() throws {
        let data = DataKind.text.bytes(count: 100_000, seed: 4)
        let bytes = try Self.stored(data, engine: .zlib6, isLast: false)
        #expect(bytes.withUnsafeBytes { StoredBlockRun.checksum($0, rawLength: data.count, isLast: false) } == nil)
        #expect(Self.outcome(try BlockVerifier(), bytes, rawLength: data.count, isLast: false) == .decoded(CRC32.checksum(data)))
    }

    /// Damage where a reader of stored blocks can go wrong (headers, lengths, the ends, the
    /// planned length, the last flag): the verifier says exactly what the zlib-only one says.
    @Test("damaged level-0 blocks get the very verdict zlib gives them")
    func damagedBlocksGetZlibsVerdict() throws {
        let data = DataKind.random.bytes(count: 150_000, seed: 21)
        let both = try BlockVerifier(), zlibOnly = try BlockVerifier(readsStoredBlocks: false)
        var rng = SplitMix64(seed: 0x5702ED)
        var accepted = 0, refused = 0
        for isLast in [false, true] {
            let honest = try Self.stored(data, engine: .stored0, isLast: isLast)
            // Where each stored block's header lies: the damage goes there most of the time.
            var headers: [Int] = []
            var position = 0
            while position < honest.count {
                headers.append(position)
                position += 5 + (Int(honest[position + 1]) | Int(honest[position + 2]) << 8)
            }
            for round in 0..<2_000 {
                var bytes = honest
                var rawLength = data.count
                var last = isLast
                switch round % 8 {
                case 0: bytes[headers.randomElement(using: &rng)! + Int.random(in: 0..<5, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                case 1: bytes[headers.randomElement(using: &rng)!] ^= 1 << UInt8.random(in: 0..<3, using: &rng)
                case 2: bytes.removeLast(Int.random(in: 1...70_000, using: &rng))
                case 3: bytes += [UInt8](repeating: 0, count: Int.random(in: 1...6, using: &rng))
                case 4: bytes += [0x00, 0x00, 0x00, 0xFF, 0xFF]  // an empty non-final stored block
                case 5: rawLength += Int.random(in: -2...2, using: &rng)
                case 6: last.toggle()
                default:
                    // Padding bits after the header are ignored by inflate; taken either way.
                    bytes[headers.randomElement(using: &rng)!] |= UInt8.random(in: 0...31, using: &rng) << 3
                }
                let mine = Self.outcome(both, bytes, rawLength: rawLength, isLast: last)
                #expect(mine == Self.outcome(zlibOnly, bytes, rawLength: rawLength, isLast: last), "round \(round), isLast \(isLast)")
                if case .decoded = mine { accepted += 1 } else { refused += 1 }
            }
        }
        // Both verdicts occur, so the comparison above is not of refusals alone.
        #expect(accepted > 100 && refused > 100, "accepted \(accepted), refused \(refused)")
    }
}
