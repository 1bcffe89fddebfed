import Foundation

/// The running count of `squeeze test` and `squeeze decompress`; each failed file is named on
/// stderr, on its own line, as it is found.
struct FileTally {
    private(set) var files = 0
    private(set) var bad = 0
    private(set) var bytesRead: UInt64 = 0
    private(set) var bytesWritten: UInt64 = 0

    mutating func add(_ outcome: FileOutcome) {
        files += 1
        switch outcome {
        case .good(let read, let wrote):
            bytesRead += read
            bytesWritten += wrote
        case .failure(let path, let reason):
            bad += 1
            FileHandle.standardError.write(Data("squeeze: \(path.display): \(reason)\n".utf8))
        }
    }
}
