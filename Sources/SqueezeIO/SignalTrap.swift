import Dispatch
import Glibc

/// Turns SIGINT/SIGTERM into a callback (run on a Dispatch queue, not a signal handler), so
/// the job can be cancelled and its temporaries removed before the process exits.
public final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    /// Ignores `signals` and calls `handler` with the number of each one that arrives, until released.
    public init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
