import SqueezeGzip

/// The engine settings the engine tests run with: each engine at its fastest, default and
/// strongest, plus the settings the level table picks.
enum EngineCase: String, CaseIterable, Sendable, CustomStringConvertible {
    case zlib0, zlib1, zlib6, zlib9
    case libdeflate0, libdeflate1, libdeflate6, libdeflate12
    case isal0, isal1, isal3
    case stored0

    var description: String { rawValue }

    /// One setting of each engine, for the heavier tests.
    static let representative: [EngineCase] = [.zlib6, .libdeflate6, .isal3]

    /// Settings whose engine takes the dictionary (libdeflate ignores it; stored references nothing).
    var usesDictionary: Bool { engine.usesDictionary }

    /// Settings that end a non-final block with a sync flush (stored blocks end byte-aligned as they are).
    var endsWithSyncMarker: Bool { engine != .stored }

    var engine: CompressionEngine {
        switch self {
        case .zlib0, .zlib1, .zlib6, .zlib9: .zlib
        case .libdeflate0, .libdeflate1, .libdeflate6, .libdeflate12: .libdeflate
        case .isal0, .isal1, .isal3: .isal
        case .stored0: .stored
        }
    }

    var level: Int {
        Int(rawValue.drop { $0.isLetter }) ?? -1
    }

    func setting() throws -> EngineSetting {
        try EngineSetting(engine: engine, level: level)
    }

    func compressor() throws -> BlockCompressor {
        try BlockCompressor(setting: setting())
    }
}
