import SqueezeProtocol

/// What in a request decides an output's bytes: `compress --resume` finishes an earlier run
/// only with the same, so kept and new outputs match.
struct OutputSettings: Equatable {
    var level: Int
    var engine: String
    var blockSize: Int

    init(_ request: JobRequest, defaultBlockSize: Int) {
        level = request.level
        engine = request.engine ?? "the default engine"
        blockSize = request.blockSize ?? defaultBlockSize
    }
}

extension OutputSettings: CustomStringConvertible {
    var description: String { "level \(level), \(engine), blocks of \(blockSize) bytes" }
}
