import ArgumentParser
import Foundation
import SqueezeProtocol

/// Exit codes of DESIGN.md: 0 all regular files compressed, 2 some failed, 1 fatal.
enum ExitStatus {
    static func code(for summary: JobSummary?) -> ExitCode {
        guard let summary, summary.state == .completed else { return ExitCode(1) }
        return summary.failedCount == 0 ? .success : ExitCode(2)
    }

    /// Ends a command that followed a job (`compress`, `submit`, `attach`): the summary's
    /// exit code, or the error on stderr and 1.
    static func finish(_ outcome: Result<JobSummary?, any Error>) throws -> Never {
        throw ExitCode(status(of: outcome))
    }

    /// The process's exit status after a job's `outcome`; a failure is written to stderr.
    static func status(of outcome: Result<JobSummary?, any Error>) -> Int32 {
        switch outcome {
        case .success(let summary):
            return code(for: summary).rawValue
        case .failure(let error):
            FileHandle.standardError.write(Data("squeeze: \(error)\n".utf8))
            return 1
        }
    }
}
