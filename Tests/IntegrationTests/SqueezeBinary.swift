import Foundation

/// Runs the real `squeeze` binary (from $SQUEEZE_BIN, or next to the test bundle).
enum SqueezeBinary {
    static var url: URL {
        if let path = ProcessInfo.processInfo.environment["SQUEEZE_BIN"], FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("squeeze")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/squeeze")
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs squeeze with `arguments`, killing it if it runs past `timeout`.
    static func run(_ arguments: [String], timeout: TimeInterval = 120) throws -> Outcome {
        try ProcessRunner.run(url, arguments, timeout: timeout)
    }
}

/// Runs a program to completion, capturing its output, and never leaves it running.
enum ProcessRunner {
    static func run(_ executable: URL, _ arguments: [String], timeout: TimeInterval = 120) throws -> SqueezeBinary.Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        // Drain the pipes while waiting so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        group.wait()
        return SqueezeBinary.Outcome(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
