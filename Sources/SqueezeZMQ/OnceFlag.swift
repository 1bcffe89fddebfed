import Synchronization

/// A flag that can be claimed once, from any thread: whoever claims it first resumes a
/// continuation, so it is resumed exactly once when several paths race.
final class OnceFlag: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// True for the first caller only.
    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
