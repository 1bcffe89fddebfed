import ArgumentParser
import Foundation
import SqueezeGzip

/// `--level` and `--engine`, shared by `compress` and `submit`.
struct CompressionOptions: ParsableArguments {
    @Option(help: "Compression level 0-9; level N is never larger than gzip -N.")
    var level = 6

    @Option(help: "Force an engine: zlib, libdeflate or isal (default: the fastest that keeps the level's promise).")
    var engine: String?

    /// Stops with a one-line message and exit status 1 for a level or engine out of range.
    func check() throws {
        guard LevelTable.levels.contains(level) else {
            throw CommandFailure.exit("--level \(level): must be 0-9")
        }
        if let engine, CompressionEngine(rawValue: engine) == nil {
            let known = CompressionEngine.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandFailure.exit("--engine \(engine.debugDescription): unknown engine (choose one of \(known))")
        }
    }
}
