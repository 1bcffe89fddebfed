import Glibc
import NIOConcurrencyHelpers
import SqueezeIO

/// The outputs being written, so an interrupt removes their temporaries before the process
/// ends, as gzip removes a partial output: a final name holds a complete file or nothing.
public final class OutputsInProgress: Sendable {
    private let current = NIOLockedValueBox<[ObjectIdentifier: AtomicOutputFile]>([:])

    /// None yet.
    public init() {}

    /// An output now being written.
    public func add(_ output: AtomicOutputFile) {
        current.withLockedValue { $0[ObjectIdentifier(output)] = output }
    }

    /// An output published or discarded.
    public func remove(_ output: AtomicOutputFile) {
        current.withLockedValue { _ = $0.removeValue(forKey: ObjectIdentifier(output)) }
    }

    /// Removes the temporaries of the outputs being written and ends the process as the signal
    /// would have (status 128 + signal). Holds the lock to the end, so no output is added meanwhile.
    public func abandon(signal number: Int32) -> Never {
        current.withLockedValue { outputs in
            for output in outputs.values { output.discard() }
            _exit(128 + number)
        }
    }
}
