/// Who stands behind a worker for the result check: one party may register many worker ids,
/// so a verifier must be a different principal from the worker it checks, by what the
/// coordinator can tell (docs/architecture.md, "Checking results").
///
/// With CURVE on both sides the key decides: one key may run many workers and many slots, but
/// they never check each other. Without a key the coordinator has the connection's address,
/// so workers from one address (a host, a NAT) count as one principal, except over loopback,
/// where the kernel names the process at the other end: two processes on the coordinator's
/// host are two principals, one process under two ids is one. Either way a worker never
/// checks one that claims its host and pid, nor one in the same local process.
struct Principal: Sendable, Hashable {
    /// What the transport said of its connection.
    var origin: ConnectionOrigin
    /// What it claimed: its host name and process id.
    var host: String
    var pid: Int32

    /// A principal of `origin` claiming `host` and `pid`.
    init(origin: ConnectionOrigin, host: String, pid: Int32) {
        self.origin = origin
        self.host = host
        self.pid = pid
    }

    /// Whether a worker of `self` may vouch for work of `other` (symmetric).
    func isIndependent(of other: Principal) -> Bool {
        if host == other.host && pid == other.pid { return false }
        if let process = origin.process, let otherProcess = other.origin.process, process == otherProcess { return false }
        // Two loopback workers, one of an unknown process: it may be the other's.
        if origin.isLoopback && other.origin.isLoopback && (origin.process == nil || other.origin.process == nil) { return false }
        if let key = origin.key, let otherKey = other.origin.key { return key != otherKey }
        if origin.process != nil && other.origin.process != nil { return true }
        guard let address = origin.address, let otherAddress = other.origin.address else { return false }
        return address != otherAddress
    }
}
