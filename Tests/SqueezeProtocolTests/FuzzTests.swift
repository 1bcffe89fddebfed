import SqueezeProtocol
import Testing

/// Random and mutated frame sets: decoding may succeed or throw `ProtocolError`, nothing else.
struct FuzzTests {
    static let iterations = 2_000

    /// Decodes and tallies; a crash fails the whole run, any other outcome is accepted.
    struct Tally {
        var decoded = 0
        var rejected = 0

        mutating func feed(_ frames: [[UInt8]]) {
            do {
                _ = try WireCodec.decode(frames)
                decoded += 1
            } catch {
                // Typed throws: `error` is a ProtocolError; its description must be usable for logs.
                #expect(!error.description.isEmpty)
                rejected += 1
            }
        }
    }

    static func randomFrame(_ rng: inout SplitMix64) -> [UInt8] {
        let length = switch Int.random(in: 0..<10, using: &rng) {
        case 0: 0
        case 1..<7: Int.random(in: 1...40, using: &rng)
        case 7, 8: Int.random(in: 41...300, using: &rng)
        default: Int.random(in: 301...4_000, using: &rng)
        }
        return (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    @Test func randomFrameSets() {
        var rng = SplitMix64(seed: 0x5155_4545_5A45)
        var tally = Tally()
        for _ in 0..<Self.iterations {
            var frames = (0..<Int.random(in: 0...6, using: &rng)).map { _ in Self.randomFrame(&rng) }
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                // Random bytes only.
                break
            case 1:
                // A valid header, then random frames.
                let type = MessageType.allCases.randomElement(using: &rng)!
                frames.insert(Fixtures.header(type, correlation: rng.next()), at: 0)
            case 2:
                // A valid header prefix with random bytes after it.
                let type = MessageType.allCases.randomElement(using: &rng)!
                let header = Fixtures.header(type)
                let keep = Int.random(in: 2...header.count, using: &rng)
                frames.insert(Array(header.prefix(keep)) + Self.randomFrame(&rng), at: 0)
            default:
                // A valid work or result header and a table-sized body with a small block count.
                let isWork = Bool.random(using: &rng)
                var table = Self.randomFrame(&rng)
                let countOffset = isWork ? 17 : 16
                if table.count >= countOffset + 4 {
                    table[countOffset] = UInt8.random(in: 0...4, using: &rng)
                    table[countOffset + 1 ..< countOffset + 4] = [0, 0, 0]
                }
                frames.insert(contentsOf: [Fixtures.header(isWork ? .work : .result), table], at: 0)
            }
            tally.feed(frames)
        }
        #expect(tally.decoded + tally.rejected == Self.iterations)
        #expect(tally.rejected > 0)
        #expect(tally.decoded > 0)
    }

    @Test func mutatedValidMessages() {
        var rng = SplitMix64(seed: 0xBAD_F00D)
        let valid = Fixtures.allMessages.map { WireCodec.encodeBytes($0, correlation: 77) }
        var tally = Tally()
        for _ in 0..<Self.iterations {
            var frames = valid.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let target = Int.random(in: 0..<frames.count, using: &rng)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0 where !frames[target].isEmpty:
                    // Flip one byte.
                    let at = Int.random(in: 0..<frames[target].count, using: &rng)
                    frames[target][at] ^= UInt8.random(in: 1...255, using: &rng)
                case 1:
                    // Cut a frame short.
                    frames[target] = Array(frames[target].prefix(Int.random(in: 0...frames[target].count, using: &rng)))
                case 2:
                    // Grow a frame.
                    frames[target] += Self.randomFrame(&rng)
                case 3 where frames.count > 1:
                    // Drop a frame.
                    frames.remove(at: target)
                case 4:
                    // Duplicate a frame.
                    frames.insert(frames[target], at: target)
                default:
                    // Set a length-like 32-bit field to an extreme.
                    if frames[target].count >= 4 {
                        let at = Int.random(in: 0...(frames[target].count - 4), using: &rng)
                        let value = [UInt32.max, UInt32(Int32.max), 0x8000_0000, 0].randomElement(using: &rng)!
                        withUnsafeBytes(of: value.littleEndian) { frames[target][at ..< at + 4] = ArraySlice($0) }
                    }
                }
            }
            tally.feed(frames)
        }
        #expect(tally.decoded + tally.rejected == Self.iterations)
        #expect(tally.rejected > 0)
    }
}
