import Glibc
import NIOConcurrencyHelpers
import SqueezeIO

/// The output being written, so an interrupt removes its temporary before the process ends,
/// as gzip removes a partial output: the final name holds a complete file or nothing.
final class OutputInProgress: Sendable {
    private let current = NIOLockedValueBox<AtomicOutputFile?>(nil)

    /// The output now being written, or nil between outputs.
    func track(_ output: AtomicOutputFile?) {
        current.withLockedValue { $0 = output }
    }

    /// Removes the temporary of the output being written, if any, and ends the process as the
    /// signal would have (status 128 + signal).
    func abandon(signal number: Int32) -> Never {
        current.withLockedValue { $0?.discard() }
        _exit(128 + number)
    }
}
