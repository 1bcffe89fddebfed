import Foundation
import Glibc

/// A `squeeze` (or other) process running while the test drives it. Output goes to files, so
/// a chatty child never blocks on a full pipe. Killed with SIGKILL when dropped, so no test
/// leaves a process behind.
final class BackgroundProcess {
    let name: String
    private let process = Process()
    private let outURL: URL
    private let errURL: URL

    init(_ name: String, executable: URL = SqueezeBinary.url, arguments: [String], in folder: URL, environment: [String: String] = [:]) throws {
        self.name = name
        outURL = folder.appendingPathComponent("\(name).out")
        errURL = folder.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        var merged = ProcessInfo.processInfo.environment
        // A coordinator's default journal folder is the test's own, never the user's (and two
        // coordinators of one test never share it).
        merged["XDG_STATE_HOME"] = folder.appendingPathComponent("state-home-\(name)").path
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            kill(process.processIdentifier, SIGCONT)
        }
        process.waitUntilExit()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to exit and returns its status; nil if it is still running after
    /// `timeout` (it is then left for the test to judge, and killed when dropped).
    @discardableResult
    func wait(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// `wait`, reading the process's peak resident set (VmHWM, which only grows) as it runs:
    /// the last reading before it exits is its peak, within the polling interval.
    func waitMeasuringPeak(timeout: TimeInterval) -> (status: Int32?, peakKiB: Int) {
        let deadline = Date().addingTimeInterval(timeout)
        var peak = 0
        while process.isRunning && Date() < deadline {
            if let kib = ProcessStatus.kibibytes("VmHWM", of: pid) { peak = max(peak, kib) }
            usleep(20_000)
        }
        return (process.isRunning ? nil : process.terminationStatus, peak)
    }

    /// Waits until `condition` holds for the process's stdout.
    func waitForOutput(timeout: TimeInterval, _ condition: (String) -> Bool) -> Bool {
        Poll.until(timeout: timeout) { condition(stdout) }
    }
}
