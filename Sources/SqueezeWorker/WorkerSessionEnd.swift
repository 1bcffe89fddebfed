/// Why a worker's connection to a coordinator ended.
enum WorkerSessionEnd: Sendable {
    /// The coordinator fell silent; reconnect.
    case coordinatorLost
    /// The worker was stopped or finished draining; exit.
    case stopped
}
