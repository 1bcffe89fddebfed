import ArgumentParser
import SqueezeProtocol

/// Exit codes of DESIGN.md: 0 all regular files compressed, 2 some failed, 1 fatal.
enum ExitStatus {
    static func code(for summary: JobSummary?) -> ExitCode {
        guard let summary, summary.state == .completed else { return ExitCode(1) }
        return summary.failed.isEmpty ? .success : ExitCode(2)
    }
}
