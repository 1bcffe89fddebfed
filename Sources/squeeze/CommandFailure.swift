import ArgumentParser
import Foundation

/// A fatal error of a command: one line on stderr, then exit status 1.
enum CommandFailure {
    /// Writes `squeeze: message` to stderr and returns the exit code to throw.
    static func exit(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("squeeze: \(message)\n".utf8))
        return ExitCode(1)
    }
}
