import Foundation
import Testing

/// Runs another tool (gzip, pigz) on bytes given on its standard input.
enum ExternalTool {
    /// `command` (an absolute path, then its arguments) fed `input`; what it wrote to stdout.
    /// It must exit 0.
    static func run(_ command: [String], input: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // Written from another thread, so a tool that fills its output pipe first cannot stall us.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(command) exited \(process.terminationStatus)")
        return [UInt8](output)
    }
}
