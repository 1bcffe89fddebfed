import Glibc

/// How job events are shown.
enum OutputMode: Sendable {
    /// A live view redrawn in place (stdout is a terminal).
    case live
    /// Plain lines (stdout is a file or pipe).
    case plain
    /// One JSON object per line.
    case json

    /// `--json` wins; otherwise live on a terminal, plain elsewhere.
    static func choose(json: Bool) -> OutputMode {
        if json { return .json }
        return isatty(STDOUT_FILENO) == 1 ? .live : .plain
    }
}
