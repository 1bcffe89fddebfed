import SqueezeGzip
import SqueezeProtocol

/// The workers the coordinator knows: who registered under which id, when each was last
/// heard from and sent to, who is due a heartbeat and who has been silent long enough to be
/// declared dead, their throughput, and how each gets at each job's files.
///
/// A value: every event comes in with its time, and the answers are peers and decisions for
/// the coordinator to carry out. It reads no clock and sends nothing.
struct WorkerRoster {
    /// The registered workers, by routing id.
    private(set) var records: [PeerID: WorkerRecord] = [:]
    /// The heartbeat period: a worker sent nothing for this long gets a heartbeat.
    let heartbeatInterval: Duration
    /// Periods a worker may stay silent before it is declared dead.
    let liveness: Int
    /// When the last round of liveness judgments ran; one runs at most once per period.
    private var lastRound: ContinuousClock.Instant?

    /// An empty roster with these heartbeat rules.
    init(heartbeatInterval: Duration, liveness: Int) {
        self.heartbeatInterval = heartbeatInterval
        self.liveness = liveness
    }

    /// The record of `peer`, if it is registered. Setting nil removes it.
    subscript(peer: PeerID) -> WorkerRecord? {
        get { records[peer] }
        set { records[peer] = newValue }
    }

    /// How many workers are registered.
    var count: Int { records.count }
    /// Whether none is.
    var isEmpty: Bool { records.isEmpty }
    /// The registered workers' routing ids, in no particular order.
    var peers: Dictionary<PeerID, WorkerRecord>.Keys { records.keys }
    /// The registered workers, in no particular order.
    var all: Dictionary<PeerID, WorkerRecord>.Values { records.values }

    /// The live worker other than `peer` that registered `hello`'s worker id, if any: a second
    /// connection may not take an id in use. The same connection announcing itself again is
    /// a re-registration, not a clash.
    func holder(of hello: WorkerHello, otherThan peer: PeerID) -> WorkerRecord? {
        records.values.first { $0.hello.workerID == hello.workerID && $0.routingID != peer }
    }

    /// Registers `peer` as `hello` says (checked by the caller) at `now`, replacing what it
    /// announced before.
    @discardableResult
    mutating func register(_ peer: PeerID, hello: WorkerHello, origin: ConnectionOrigin = nil, at now: ContinuousClock.Instant) -> WorkerRecord {
        let record = WorkerRecord(
            routingID: peer, hello: hello, principal: Principal(origin: origin, host: hello.host, pid: hello.pid), lastHeard: now, lastSent: now)
        records[peer] = record
        return record
    }

    /// The kernel named the process behind `peer`'s loopback connection.
    mutating func setProcess(_ process: Int32?, of peer: PeerID) {
        records[peer]?.principal.origin.process = process
    }

    /// Forgets `peer`; returns its record if it was registered.
    @discardableResult
    mutating func remove(_ peer: PeerID) -> WorkerRecord? {
        records.removeValue(forKey: peer)
    }

    /// `peer` sent something at `now`: any message is a sign of life. Returns whether it is registered.
    @discardableResult
    mutating func heard(_ peer: PeerID, at now: ContinuousClock.Instant) -> Bool {
        guard records[peer] != nil else { return false }
        records[peer]?.lastHeard = now
        return true
    }

    /// Something went to `peer` at `now`: it needs no heartbeat for a period.
    mutating func sent(_ peer: PeerID, at now: ContinuousClock.Instant) {
        records[peer]?.lastSent = now
    }

    /// The workers sent nothing for a whole period by `now`: each is due a heartbeat. A busy
    /// connection exchanges none. Sorted, so the order does not depend on the table's.
    func quiet(at now: ContinuousClock.Instant) -> [PeerID] {
        records.values.filter { now - $0.lastSent >= heartbeatInterval }.map(\.routingID).sorted { $0 < $1 }
    }

    /// Whether the once-a-period round (liveness, probes, stalled stitches, client deadlines)
    /// is due at `now`; if it is, it counts as run.
    mutating func roundDue(at now: ContinuousClock.Instant) -> Bool {
        if let lastRound, now - lastRound < heartbeatInterval { return false }
        lastRound = now
        return true
    }

    /// The workers silent for longer than `liveness` periods at `now`: each is to be declared
    /// dead (and its items requeued). Sorted, like `quiet`.
    func silent(at now: ContinuousClock.Instant) -> [PeerID] {
        let deadline = heartbeatInterval * liveness
        return records.values.filter { now - $0.lastHeard > deadline }.map(\.routingID).sorted { $0 < $1 }
    }

    /// Counts an accepted item of `bytes` from `peer` at `now`, for `status`.
    mutating func credit(_ peer: PeerID, bytes: Int, at now: ContinuousClock.Instant) {
        guard var worker = records[peer] else { return }
        worker.itemsDone += 1
        worker.recent.append((now, bytes))
        worker.recent.removeAll { now - $0.0 > WorkerRecord.throughputSpan }
        records[peer] = worker
    }

    /// The slots of every registered worker. Each is 1…1024 (checked at `workerReady`), so the
    /// sum cannot overflow.
    var slots: Int { records.values.reduce(0) { $0 + $1.hello.slots } }

    /// The engines of the registered workers, for messages: "isal, libdeflate, zlib".
    var engineSummary: String {
        let engines = records.values.reduce(into: Set<CompressionEngine>()) { $0.formUnion($1.engines) }
        return engines.isEmpty ? "none" : engines.map(\.rawValue).sorted().joined(separator: ", ")
    }
}
