/// The kinds of input the tests compress.
enum DataKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Incompressible: deflate falls back to stored blocks.
    case random
    /// Maximally compressible: long runs only.
    case zeros
    /// Words, spaces and line breaks: realistic matches that reach back across blocks.
    case text

    var description: String { rawValue }

    /// `count` bytes of this kind; the same (kind, count, seed) always gives the same bytes.
    func bytes(count: Int, seed: UInt64 = 0x5EED) -> [UInt8] {
        var rng = SplitMix64(seed: seed ^ UInt64(count))
        switch self {
        case .zeros:
            return [UInt8](repeating: 0, count: count)
        case .random:
            var bytes = [UInt8](repeating: 0, count: count)
            bytes.withUnsafeMutableBytes { buffer in
                // 8 bytes per PRNG call keeps multi-MiB inputs fast in debug builds.
                var index = 0
                while index < buffer.count {
                    var word = rng.next()
                    for _ in 0..<min(8, buffer.count - index) {
                        buffer[index] = UInt8(truncatingIfNeeded: word)
                        word >>= 8
                        index += 1
                    }
                }
            }
            return bytes
        case .text:
            return Self.text(count: count, rng: &rng)
        }
    }

    private static func text(count: Int, rng: inout SplitMix64) -> [UInt8] {
        let letters = Array("etaoinshrdlucmfwypvbgkjqxz".utf8)
        let vocabulary: [[UInt8]] = (0..<400).map { _ in
            let length = Int.random(in: 2...10, using: &rng)
            // Squaring skews towards common letters, like real text.
            return (0..<length).map { _ in
                let pick = Double.random(in: 0..<1, using: &rng)
                return letters[Int(pick * pick * Double(letters.count))]
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 16)
        var wordsOnLine = 0
        while bytes.count < count {
            // min of two uniforms: frequent words dominate, as in natural language.
            let index = min(Int.random(in: 0..<vocabulary.count, using: &rng),
                            Int.random(in: 0..<vocabulary.count, using: &rng))
            bytes.append(contentsOf: vocabulary[index])
            wordsOnLine += 1
            if wordsOnLine >= 12, Int.random(in: 0..<4, using: &rng) == 0 {
                bytes.append(contentsOf: Array(".\n".utf8))
                wordsOnLine = 0
            } else {
                bytes.append(UInt8(ascii: " "))
            }
        }
        return Array(bytes.prefix(count))
    }
}
