import SqueezeProtocol

/// `verify` items waiting to leave with the next message to their verifier.
///
/// Each message costs the coordinator about the same whatever it carries: a wake of the
/// endpoint's thread, of libzmq's, a loopback write (docs/architecture.md, "Items"). A
/// verifier that is compressing gets its next `work`/`workRef` as soon as its answer is in,
/// so a check for it waits for that message and leaves in the same wake. When its answer is
/// in and no dispatch goes to it (the job's window is full, or nothing is left to send), the
/// coordinator sends what it holds at once: the window may be waiting for those very checks.
/// The tick (every 100 ms) sends whatever is still waiting. A verifier with nothing in flight
/// gets its check at once, and so does a check that carries compressed bytes (a remote
/// worker's answer): its item holds part of the relay budget until it is written, so an
/// answer waiting for its check may hold dispatch, and a message of megabytes costs the same
/// wake as a reference.
struct OutgoingChecks: Sendable {
    private var held: [PeerID: [VerifyRequest]] = [:]

    /// Whether a check for a verifier with `inFlight` items out should wait for the next
    /// dispatch to it rather than leave on its own; `carriesBytes` when it sends compressed
    /// bytes rather than references to pieces.
    static func shouldHold(verifierInFlight inFlight: Int, carriesBytes: Bool) -> Bool { inFlight > 0 && !carriesBytes }

    /// No check is waiting.
    var isEmpty: Bool { held.isEmpty }

    /// Keeps `request` for `verifier`, after those already kept for it.
    mutating func hold(_ request: VerifyRequest, for verifier: PeerID) {
        held[verifier, default: []].append(request)
    }

    /// The checks kept for `verifier`, in the order they were kept; none are kept after.
    mutating func take(for verifier: PeerID) -> [VerifyRequest] {
        held.removeValue(forKey: verifier) ?? []
    }

    /// Every kept check by verifier; none are kept after.
    mutating func takeAll() -> [(verifier: PeerID, requests: [VerifyRequest])] {
        defer { held.removeAll() }
        return held.map { (verifier: $0.key, requests: $0.value) }
    }

    /// Drops the checks of a job that ended (the coordinator forgot them).
    mutating func forget(job: JobID) {
        for verifier in Array(held.keys) {
            let kept = held[verifier, default: []].filter { $0.jobID != job.value }
            held[verifier] = kept.isEmpty ? nil : kept
        }
    }

    /// Drops the checks kept for a verifier that left (they are taken back as pending checks).
    mutating func forget(verifier: PeerID) {
        held.removeValue(forKey: verifier)
    }
}
