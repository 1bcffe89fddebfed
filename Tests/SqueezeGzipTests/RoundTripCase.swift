/// One input size / block size / data kind combination for the round-trip matrix.
struct RoundTripCase: Sendable, CustomStringConvertible {
    var size: Int
    var blockSize: Int
    var kind: DataKind

    var description: String { "\(kind) \(size) bytes in \(blockSize / 1024) KiB blocks" }

    /// Sizes around the dictionary window and the block boundaries.
    static func edgeSizes(blockSize: Int) -> [Int] {
        [0, 1, 32767, 32768, 32769, blockSize - 1, blockSize, blockSize + 1,
         2 * blockSize, 2 * blockSize + 1]
    }

    static let matrix: [RoundTripCase] = [64 * 1024, 128 * 1024].flatMap { blockSize in
        edgeSizes(blockSize: blockSize).flatMap { size in
            DataKind.allCases.map { RoundTripCase(size: size, blockSize: blockSize, kind: $0) }
        }
    }
}
