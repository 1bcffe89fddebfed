/// Writes a deflate bit stream by hand, for blocks no encoder would make: values packed from
/// the least significant bit, Huffman codes from their most significant bit (RFC 1951, 3.1.1).
struct DeflateBits {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    /// `count` bits of `value`, least significant first (header fields, extra bits).
    mutating func value(_ value: Int, bits count: Int) {
        for bit in 0..<count { append((value >> bit) & 1) }
    }

    /// A Huffman code of `length` bits, most significant first.
    mutating func code(_ code: Int, length: Int) {
        for bit in stride(from: length - 1, through: 0, by: -1) { append((code >> bit) & 1) }
    }

    private mutating func append(_ bit: Int) {
        if used == 0 { bytes.append(0) }
        bytes[bytes.count - 1] |= UInt8(bit) << used
        used = (used + 1) % 8
    }

    /// A final dynamic-Huffman block decoding to `count` × "A": literal/length code lengths
    /// `literalLengths` (symbol → length; must give 'A' and end-of-block canonical codes), one
    /// distance code of length 1.
    static func dynamicBlock(repeatingA count: Int, literalLengths: [Int: Int]) -> [UInt8] {
        var bits = DeflateBits()
        bits.value(1, bits: 1)  // BFINAL
        bits.value(2, bits: 2)  // dynamic Huffman
        bits.value(0, bits: 5)  // HLIT: 257 literal/length codes
        bits.value(0, bits: 5)  // HDIST: 1 distance code
        bits.value(14, bits: 4)  // HCLEN: 18 code-length codes, up to symbol 1 in the order
        // The code-length code: symbol 0 → 1 bit, 1 and 2 → 2 bits; in RFC order 16, 17, 18, 0, …
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
        let codeLengthLengths = [0: 1, 1: 2, 2: 2]
        for symbol in order { bits.value(codeLengthLengths[symbol] ?? 0, bits: 3) }
        let codeLengthCodes = [0: (0, 1), 1: (2, 2), 2: (3, 2)]  // canonical: 0, 10, 11
        let lengths = (0...256).map { literalLengths[$0] ?? 0 } + [1]
        for length in lengths {
            guard let (code, size) = codeLengthCodes[length] else { preconditionFailure("lengths 0…2 only") }
            bits.code(code, length: size)
        }
        // Canonical literal codes: shorter first, then by symbol.
        var codes: [Int: (Int, Int)] = [:]
        var next = 0
        var previous = 0
        for (symbol, length) in literalLengths.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
            next <<= length - previous
            previous = length
            codes[symbol] = (next, length)
            next += 1
        }
        guard let a = codes[65], let end = codes[256] else { preconditionFailure("'A' and end-of-block need codes") }
        for _ in 0..<count { bits.code(a.0, length: a.1) }
        bits.code(end.0, length: end.1)
        return bits.bytes
    }
}
