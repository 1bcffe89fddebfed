/// Errors of the I/O pool itself.
public enum IOPoolError: Error, Sendable {
    /// The pool was shut down before the job could be queued.
    case stopped
}
