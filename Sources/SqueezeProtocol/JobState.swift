/// How a job ended, or that it is still running.
public enum JobState: String, Codable, Sendable, Equatable {
    /// Planned or in progress.
    case running
    /// Every file was handled (some may have failed individually).
    case completed
    /// Cancelled by the client, or because the client went away.
    case cancelled
    /// Stopped by a fatal error (see the summary's message).
    case failed
}
