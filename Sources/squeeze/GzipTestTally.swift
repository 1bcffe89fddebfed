import Foundation

/// `squeeze test`'s running count; each bad file is named on stderr as it is found.
struct GzipTestTally {
    private(set) var files = 0
    private(set) var bad = 0
    private(set) var bytes: UInt64 = 0

    mutating func add(_ outcome: GzipTestOutcome) {
        files += 1
        switch outcome {
        case .good(let size):
            bytes += size
        case .failure(let path, let reason):
            bad += 1
            FileHandle.standardError.write(Data("squeeze: \(path.display): \(reason)\n".utf8))
        }
    }
}
