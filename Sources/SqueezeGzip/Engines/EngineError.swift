/// A failure inside libdeflate or ISA-L, or a setting an engine cannot take.
public struct EngineError: Error, Sendable, CustomStringConvertible {
    /// The engine that failed.
    public let engine: CompressionEngine
    /// The call or step that failed, e.g. `"isal_deflate"`.
    public let operation: String
    /// What went wrong.
    public let message: String

    /// Creates an error from its parts.
    public init(engine: CompressionEngine, operation: String, message: String) {
        self.engine = engine
        self.operation = operation
        self.message = message
    }

    /// `"<engine> <operation> failed: <message>"`.
    public var description: String {
        "\(engine.rawValue) \(operation) failed: \(message)"
    }
}
