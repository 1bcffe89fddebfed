import NIOConcurrencyHelpers

/// Lets async code wait for a thread the project owns to exit: each waiter's continuation is
/// resumed exactly once, at the exit or at once when the thread has already gone.
final class ThreadExit: Sendable {
    private let state = NIOLockedValueBox((exited: false, waiters: [CheckedContinuation<Void, Never>]()))

    /// Returns once `markExited` has been called.
    func wait() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let exited = state.withLockedValue { state in
                if !state.exited { state.waiters.append(done) }
                return state.exited
            }
            if exited { done.resume() }
        }
    }

    /// Called by the thread as its last act; resumes every waiter.
    func markExited() {
        let waiters = state.withLockedValue { state in
            state.exited = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
