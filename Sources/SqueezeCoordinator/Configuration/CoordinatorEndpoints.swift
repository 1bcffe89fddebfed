/// The addresses a running coordinator is bound to, with the ports libzmq chose for `:*`.
public struct CoordinatorEndpoints: Sendable, Equatable {
    /// Where workers connect.
    public var workers: [String]
    /// Where clients (`submit`, `status`) connect; empty when embedded.
    public var clients: [String]

    /// Creates the set.
    public init(workers: [String], clients: [String]) {
        self.workers = workers
        self.clients = clients
    }
}
