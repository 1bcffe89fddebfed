import Foundation
import SqueezeGzip
import Testing

/// Runs the system's /usr/bin/gzip on produced members: the real-world acceptance check.
enum SystemGzip {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
    }

    /// Checks `member` with `gzip -t`, `gzip -dc` and `GzipDecoder`, each must give back `original`.
    static func expectValid(_ member: [UInt8], original: [UInt8],
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("squeeze-gzip-\(UUID().uuidString).gz")
        try Data(member).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        let test = try run(["-t", url.path])
        #expect(test.status == 0, "gzip -t failed: \(test.stderr)", sourceLocation: sourceLocation)

        let decompressed = try run(["-dc", url.path])
        #expect(decompressed.status == 0, "gzip -dc failed: \(decompressed.stderr)",
                sourceLocation: sourceLocation)
        #expect(decompressed.stdout == original, "gzip -dc output differs",
                sourceLocation: sourceLocation)

        #expect(try GzipDecoder.decompress(member) == original, "GzipDecoder output differs",
                sourceLocation: sourceLocation)
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Drain stdout before waiting: a full pipe would block gzip forever.
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: [UInt8](output),
                      stderr: String(decoding: errors, as: UTF8.self))
    }
}
