/// A deflate implementation blocks can be compressed with. All write standard raw deflate;
/// they differ in speed and in how small they get the output.
public enum CompressionEngine: String, Sendable, CaseIterable, Codable {
    /// zlib: the reference; the only engine a minimal outside worker is sure to have.
    case zlib
    /// libdeflate: about 3× zlib's speed at a slightly smaller size. Has no preset
    /// dictionary; its streams are continued by clearing the final bit (see `LibdeflateEncoder`).
    case libdeflate
    /// ISA-L (igzip): the fastest, at gzip -1's size or a little more; levels 0–3 only.
    case isal
    /// No compression: stored blocks only (`StoredBlocks`), level 0. Each block's output
    /// length is known before it is written, so shared-storage workers write it in place.
    case stored

    /// The levels the engine's own library accepts.
    public var levels: ClosedRange<Int> {
        switch self {
        case .zlib: 0...9
        case .libdeflate: 0...12
        case .isal: 0...3
        case .stored: 0...0
        }
    }

    /// The engine's number on the wire (docs/protocol.md).
    public var wireValue: UInt8 {
        switch self {
        case .zlib: 0
        case .libdeflate: 1
        case .isal: 2
        case .stored: 3
        }
    }

    /// Whether the engine primes a block with the 32 KiB before it. libdeflate has no preset
    /// dictionary and stored blocks reference nothing, so for them none is read or sent.
    public var usesDictionary: Bool {
        switch self {
        case .zlib, .isal: true
        case .libdeflate, .stored: false
        }
    }

    /// The engine with wire number `wireValue`, or nil for an unknown number.
    public init?(wireValue: UInt8) {
        guard let engine = Self.allCases.first(where: { $0.wireValue == wireValue }) else { return nil }
        self = engine
    }
}
