/// Which engine and setting a user-facing level gets.
///
/// Levels keep their meaning: level N never gives a larger output than `gzip -N`, and each
/// level uses the fastest setting measured to keep that promise with some headroom on every
/// corpus of the benchmark harness (docs/benchmarks.md has the measured table):
///
/// | level | setting | why |
/// | --- | --- | --- |
/// | 0 | stored | stored blocks only, like `pigz -0`; sizes known in advance |
/// | 1 | isal -3 | 2–3× libdeflate -1's speed, still smaller than gzip -1 |
/// | 2–9 | libdeflate -N | 2–4× zlib's speed at 0.5–3% below gzip -N |
///
/// A forced engine takes the level on its own scale: zlib and libdeflate level N, ISA-L
/// level min(N, 3), stored level 0. Forcing gives up the size promise where the engine cannot keep it.
public enum LevelTable {
    /// The levels users choose from.
    public static let levels = 0...9

    /// The setting for `level`, with `engine` forced or (nil) chosen by the table.
    /// - Throws: `EngineError` for a level outside 0–9.
    public static func setting(forLevel level: Int, engine: CompressionEngine? = nil) throws(EngineError) -> EngineSetting {
        guard levels.contains(level) else {
            throw EngineError(engine: engine ?? .zlib, operation: "level", message: "level \(level) is outside 0-9")
        }
        switch engine {
        case .zlib?: return try EngineSetting(engine: .zlib, level: level)
        case .libdeflate?: return try EngineSetting(engine: .libdeflate, level: level)
        case .isal?: return try EngineSetting(engine: .isal, level: min(level, 3))
        case .stored?: return try EngineSetting(engine: .stored, level: 0)
        case nil:
            switch level {
            case 0: return try EngineSetting(engine: .stored, level: 0)
            case 1: return try EngineSetting(engine: .isal, level: 3)
            default: return try EngineSetting(engine: .libdeflate, level: level)
            }
        }
    }
}
