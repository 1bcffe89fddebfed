import Synchronization

/// Asks a running coordinator to stop, from any thread (a signal handler's callback, say):
/// a flag anyone can read, and one wake for the task that stops it (kept if it comes first).
final class ShutdownSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    private let wakes = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    /// Whether a stop was asked for.
    var requested: Bool { flag.load(ordering: .relaxed) }

    /// Asks for a stop (again: harmless).
    func request() {
        flag.store(true, ordering: .relaxed)
        wakes.continuation.yield()
    }

    /// Returns once a stop was asked for, or when the task is cancelled.
    func wait() async {
        for await _ in wakes.stream { break }
    }
}
