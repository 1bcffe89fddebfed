import Foundation
import SqueezeProtocol
import SqueezeZMQ
import Testing

/// A seeded fuzz run of the decoder over every message type, as either endpoint receives them
/// (the codec is the same on both): mutations of valid messages (bit flips, byte and length
/// fields set to boundary values, truncations, growth, splices of two messages, frames
/// dropped, duplicated or added, the header's type swapped) and random frames. The decoder
/// must never trap; every failure is a `ProtocolError`; and whatever decodes re-encodes to
/// frames that decode to an equal message.
///
/// 250,000 inputs in `make test` (a million took 48 s of its parallel pass); `make fuzz` sets
/// `SQUEEZE_FUZZ_ITERATIONS` (and optionally `SQUEEZE_FUZZ_SEED`) for a longer run.
@Suite("Decoder fuzz")
struct DecoderFuzzTests {
    /// Inputs per run: `SQUEEZE_FUZZ_ITERATIONS`, or 250,000.
    static let iterations: Int = {
        guard let text = ProcessInfo.processInfo.environment["SQUEEZE_FUZZ_ITERATIONS"], let value = Int(text), value > 0 else {
            return 250_000
        }
        return value
    }()

    /// The seed: `SQUEEZE_FUZZ_SEED`, or a fixed one, so a failure can be replayed.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["SQUEEZE_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x5EED_F022

    /// Valid messages of every type, encoded, as the mutations' starting points.
    static let corpus: [[[UInt8]]] = Fixtures.allMessages.map { WireCodec.encodeBytes($0, correlation: 0x0102_0304_0506_0708) }

    /// 32-bit values at the edges of the protocol's limits and of the integer types.
    static let boundaries32: [UInt32] = [
        0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x1_0000,
        UInt32(ProtocolLimits.maxBlocksPerItem), UInt32(ProtocolLimits.maxBlocksPerItem + 1),
        UInt32(ProtocolLimits.maxDictionarySize), UInt32(ProtocolLimits.maxDictionarySize + 1),
        UInt32(ProtocolLimits.maxBlockSize), UInt32(ProtocolLimits.maxBlockSize + 1),
        UInt32(ProtocolLimits.maxPathBytes), UInt32(ProtocolLimits.maxPathBytes + 1),
        UInt32(ProtocolLimits.maxControlBody), UInt32(Int32.max), 0x8000_0000, UInt32.max - 1, UInt32.max,
    ]

    /// 64-bit values likewise (ids, offsets, sizes).
    static let boundaries64: [UInt64] = [
        0, 1, ProtocolLimits.maxPlacementOffset, ProtocolLimits.maxPlacementOffset + 1,
        UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max - 1, UInt64.max,
    ]

    /// Numbers written into JSON bodies in place of one of theirs.
    static let jsonNumbers: [[UInt8]] = [
        "0", "-1", "1024", "1025", "99", "100", "60000", "60001", "2147483648", "-2147483649",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "-9223372036854775809", "1e400", "-1e400", "1.5", "0.0000001", "1e2", "-0", "null", "true", "\"7\"",
    ].map { Array($0.utf8) }

    /// What a run saw.
    struct Tally {
        var decoded = 0
        var rejected = 0
        var byType: [MessageType: Int] = [:]
        var roundTripFailures: [String] = []
    }

    @Test("mutated and random inputs (250,000, or SQUEEZE_FUZZ_ITERATIONS): never a trap, only ProtocolErrors, and every decoded message round-trips")
    func fuzzTheDecoder() {
        let started = ContinuousClock.now
        var rng = SplitMix64(seed: Self.seed)
        var tally = Tally()
        for _ in 0..<Self.iterations {
            Self.feed(Self.input(&rng), into: &tally)
        }
        let elapsed = ContinuousClock.now - started
        print("decoder fuzz: \(Self.iterations) inputs (seed \(Self.seed)) in \(elapsed): \(tally.decoded) decoded, \(tally.rejected) rejected")
        #expect(tally.decoded + tally.rejected == Self.iterations)
        #expect(tally.roundTripFailures.isEmpty, "\(tally.roundTripFailures.prefix(5))")
        // The mutations must reach every type's decoder with something it accepts, not only
        // the header check: otherwise the run tests less than it claims.
        let silent = MessageType.allCases.filter { (tally.byType[$0] ?? 0) == 0 }
        #expect(silent.isEmpty, "types never decoded: \(silent)")
        #expect(tally.rejected > Self.iterations / 4 && tally.decoded > Self.iterations / 100)
    }

    /// Decodes one input; whatever decodes must come back equal after a second encoding.
    static func feed(_ frames: [ZMQFrame], into tally: inout Tally) {
        let envelope: WireEnvelope
        do {
            envelope = try WireCodec.decode(frames)
        } catch {
            // Typed throws: the only error there can be is a ProtocolError, with a description for logs.
            tally.rejected += 1
            if error.description.isEmpty { tally.roundTripFailures.append("an error without a description: \(error)") }
            return
        }
        tally.decoded += 1
        tally.byType[envelope.message.type, default: 0] += 1
        let again = WireCodec.encode(envelope.message, correlation: envelope.correlation)
        do {
            let second = try WireCodec.decode(again)
            if second != envelope, tally.roundTripFailures.count < 20 {
                tally.roundTripFailures.append("\(envelope.message.type): \(envelope.message) became \(second.message)")
            }
        } catch {
            if tally.roundTripFailures.count < 20 {
                tally.roundTripFailures.append("\(envelope.message.type) re-encoded does not decode: \(error)")
            }
        }
    }

    /// One input: usually a valid message with one to three mutations, sometimes random frames.
    static func input(_ rng: inout SplitMix64) -> [ZMQFrame] {
        if rng.next() % 16 == 0 { return randomFrames(&rng) }
        var frames = corpus[Int(rng.next() % UInt64(corpus.count))]
        for _ in 0...(rng.next() % 3) { mutate(&frames, &rng) }
        return frames.map { ZMQFrame($0) }
    }

    static func randomFrames(_ rng: inout SplitMix64) -> [ZMQFrame] {
        var frames: [[UInt8]] = []
        if rng.next() % 2 == 0 {
            // A sound header of any type, then random frames: the bodies' decoders get garbage.
            let type = MessageType.allCases[Int(rng.next() % UInt64(MessageType.allCases.count))]
            frames.append(MessageHeader(type: type, correlation: rng.next()).encoded())
        }
        for _ in 0..<(rng.next() % 5) {
            let length = Int(rng.next() % (rng.next() % 4 == 0 ? 600 : 40))
            frames.append((0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
        return frames.map { ZMQFrame($0) }
    }

    static func mutate(_ frames: inout [[UInt8]], _ rng: inout SplitMix64) {
        guard !frames.isEmpty else {
            frames.append([])
            return
        }
        // Header mutations are rarer: most of the work is in the bodies' decoders.
        let target = frames.count > 1 && rng.next() % 5 != 0 ? 1 + Int(rng.next() % UInt64(frames.count - 1)) : 0
        let count = frames[target].count
        switch rng.next() % 12 {
        case 0 where count > 0:
            // Flip one bit.
            frames[target][Int(rng.next() % UInt64(count))] ^= 1 << UInt8(rng.next() % 8)
        case 1 where count > 0:
            // Set one byte to an edge value.
            let edges: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x7B, 0x7D, 0x2C]
            frames[target][Int(rng.next() % UInt64(count))] = edges[Int(rng.next() % UInt64(edges.count))]
        case 2 where count >= 4:
            // A 32-bit field (lengths, counts, indexes) set to a boundary.
            let at = Int(rng.next() % UInt64(count - 3))
            let value = boundaries32[Int(rng.next() % UInt64(boundaries32.count))].littleEndian
            withUnsafeBytes(of: value) { frames[target].replaceSubrange(at..<at + 4, with: $0) }
        case 3 where count >= 8:
            // A 64-bit field (ids, offsets, sizes) set to a boundary.
            let at = Int(rng.next() % UInt64(count - 7))
            let value = boundaries64[Int(rng.next() % UInt64(boundaries64.count))].littleEndian
            withUnsafeBytes(of: value) { frames[target].replaceSubrange(at..<at + 8, with: $0) }
        case 4:
            // Cut short.
            frames[target].removeLast(count == 0 ? 0 : Int(rng.next() % UInt64(count + 1)))
        case 5:
            // Grow by a few bytes.
            for _ in 0..<(1 + rng.next() % 8) { frames[target].append(UInt8(truncatingIfNeeded: rng.next())) }
        case 6:
            // Splice: this frame's head with the tail of the same frame of another message.
            let other = corpus[Int(rng.next() % UInt64(corpus.count))]
            if target < other.count {
                let cut = Int(rng.next() % UInt64(count + 1))
                let from = Int(rng.next() % UInt64(other[target].count + 1))
                frames[target] = Array(frames[target][..<cut]) + other[target][from...]
            }
        case 7 where frames.count > 1:
            // Drop a frame.
            frames.remove(at: Int(rng.next() % UInt64(frames.count)))
        case 8:
            // Duplicate a frame, or add an empty one.
            frames.insert(rng.next() % 2 == 0 ? frames[target] : [], at: Int(rng.next() % UInt64(frames.count + 1)))
        case 9 where frames[0].count == ProtocolLimits.headerSize:
            // Another message's type on this body.
            frames[0][3] = MessageType.allCases[Int(rng.next() % UInt64(MessageType.allCases.count))].rawValue
        case 10 where target > 0 && frames[target].first == UInt8(ascii: "{"):
            // A JSON number replaced with a boundary (or a value of another type).
            replaceJSONNumber(in: &frames[target], &rng)
        default:
            // Version or magic, or a byte of the correlation id.
            if !frames[0].isEmpty { frames[0][Int(rng.next() % UInt64(frames[0].count))] = UInt8(truncatingIfNeeded: rng.next()) }
        }
    }

    /// Replaces the run of digits at or after a random position with a boundary number.
    static func replaceJSONNumber(in body: inout [UInt8], _ rng: inout SplitMix64) {
        var start = Int(rng.next() % UInt64(body.count))
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        while start < body.count, !isDigit(body[start]) { start += 1 }
        guard start < body.count else { return }
        var end = start
        while end < body.count, isDigit(body[end]) { end += 1 }
        body.replaceSubrange(start..<end, with: jsonNumbers[Int(rng.next() % UInt64(jsonNumbers.count))])
    }
}
