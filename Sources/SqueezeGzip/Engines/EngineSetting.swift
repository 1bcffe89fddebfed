/// Exactly how a job's blocks are compressed: an engine and a level on that engine's own
/// scale. A job carries one, so every worker produces the same bytes for the same block.
public struct EngineSetting: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The deflate implementation.
    public let engine: CompressionEngine
    /// The level in the engine's own terms (`engine.levels`).
    public let level: Int

    /// A setting; throws `EngineError` when `level` is outside `engine.levels`.
    public init(engine: CompressionEngine, level: Int) throws(EngineError) {
        guard engine.levels.contains(level) else {
            throw EngineError(engine: engine, operation: "level",
                              message: "level \(level) is outside \(engine.levels.lowerBound)-\(engine.levels.upperBound)")
        }
        self.engine = engine
        self.level = level
    }

    /// `"libdeflate -6"`.
    public var description: String { "\(engine.rawValue) -\(level)" }
}
