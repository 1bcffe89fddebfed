import Foundation
import Logging
import NIOConcurrencyHelpers
import SqueezeZMQ

/// The coordinator's allow-list: the public keys of the certificates (`*.pub`, `*.key`) in
/// one folder, judged for every ZAP request on the ZAP handler's thread.
///
/// The folder is read again when its modification or change time moves (a file added,
/// removed or renamed) and at least every `maxAge` (a file edited in place), so a change
/// takes effect for the next connection without a restart. Connections already made stay.
/// The coordinator's own public key is always accepted: whoever holds its secret key is the
/// coordinator (its health check connects with it).
public final class AuthorizedKeys: Sendable {
    /// How long a reading of the folder is trusted when the folder itself looks unchanged.
    public static let maxAge = Duration.seconds(1)
    /// Files read at most per reading, so a folder full of junk costs a bounded time.
    public static let maxFiles = 10_000
    /// A refused key is logged the first time, then at most once per this interval.
    static let refusalLogInterval = Duration.seconds(60)

    /// The folder of public certificates.
    public let folder: String
    private let own: CurveKey
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    private struct State {
        var keys: [CurveKey: String] = [:]
        var stamp: [Int] = []
        var readAt: ContinuousClock.Instant?
        var problems: Set<String> = []
        var refused = 0
        /// When each refused key (or endpoint, for failed handshakes) was last logged, and
        /// how many of its refusals were not logged since.
        var lastLogged: [String: (at: ContinuousClock.Instant, suppressed: Int)] = [:]
    }

    /// An allow-list over `folder` for a coordinator whose public key is `own`.
    public init(folder: String, own: CurveKey, logger: Logger) {
        self.folder = folder
        self.own = own
        self.logger = logger
    }

    /// Connections refused since start.
    public var refusedCount: Int { state.withLockedValue { $0.refused } }

    /// Keys in the folder at its last reading.
    public var count: Int { state.withLockedValue { $0.keys.count } }

    /// Reads the folder now; for the start, where a folder that is missing or not a folder
    /// is an error (one line naming it). Files that are not certificates are logged and skipped.
    public func load() throws(CurveCertificateError) -> Int {
        var info = stat()
        guard stat(folder, &info) == 0 else {
            throw CurveCertificateError(path: folder, reason: "cannot read the folder: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw CurveCertificateError(path: folder, reason: "not a folder") }
        refresh(force: true)
        return count
    }

    /// The verdict on one ZAP request: 200 for a CURVE key in the folder (or the
    /// coordinator's own), 400 for anything else, which is counted and logged with its key.
    public func decide(_ request: ZAPRequest) -> ZAPDecision {
        guard let key = request.clientKey else {
            refuse("mechanism \(request.mechanism) on \(request.domain)", reason: "\(request.mechanism) connection (CURVE is required)",
                   metadata: ["endpoint": "\(request.domain)", "address": "\(request.address)"])
            return .deny(.authenticationFailure, "CURVE required")
        }
        if key == own { return .allow(userID: "coordinator") }
        refresh(force: false)
        if let name = state.withLockedValue({ $0.keys[key] }) {
            logger.debug("authorized connection", metadata: ["key": "\(key.z85)", "file": "\(name)", "endpoint": "\(request.domain)", "address": "\(request.address)"])
            return .allow(userID: name)
        }
        refuse(key.z85, reason: "key not authorized",
               metadata: ["key": "\(key.z85)", "endpoint": "\(request.domain)", "address": "\(request.address)"])
        return .deny(.authenticationFailure, "key not authorized")
    }

    /// Counts and logs a connection to the `endpoint` socket (`clients`, `workers`) that
    /// failed before ZAP could judge it: a peer without CURVE or with another server key.
    public func handshakeFailed(_ failure: ZMQHandshakeFailure, endpoint: String) {
        refuse("handshake on \(endpoint)", reason: failure.reason, metadata: ["endpoint": "\(endpoint)", "listening": "\(failure.endpoint)"])
    }

    /// Counts a refusal and logs it, the first time for `subject` and then at most once per
    /// `refusalLogInterval`, so a peer retrying every second does not flood the log.
    private func refuse(_ subject: String, reason: String, metadata: Logger.Metadata) {
        let now = EventTime.current().instant
        let (total, log, suppressed) = state.withLockedValue { state -> (Int, Bool, Int) in
            state.refused += 1
            if let last = state.lastLogged[subject], now - last.at < Self.refusalLogInterval {
                state.lastLogged[subject]?.suppressed += 1
                return (state.refused, false, 0)
            }
            // Bounded: many distinct keys only make the log a little chattier.
            if state.lastLogged.count >= 1024 { state.lastLogged.removeAll() }
            let suppressed = state.lastLogged[subject]?.suppressed ?? 0
            state.lastLogged[subject] = (now, 0)
            return (state.refused, true, suppressed)
        }
        guard log else { return }
        var metadata = metadata
        metadata["refused"] = "\(total)"
        if suppressed > 0 { metadata["unlogged"] = "\(suppressed)" }
        logger.warning("refused connection: \(reason)", metadata: metadata)
    }

    /// Reads the folder again when it changed or the last reading is older than `maxAge`.
    /// Runs on the ZAP handler's thread only, so two readings never overlap.
    private func refresh(force: Bool) {
        let stamp = Self.stamp(folder)
        let now = EventTime.current().instant
        let fresh = state.withLockedValue { state in
            state.stamp == stamp && state.readAt.map { now - $0 < Self.maxAge } == true
        }
        if fresh && !force { return }
        let (keys, problems) = read()
        let (newProblems, before) = state.withLockedValue { state in
            defer {
                state.keys = keys
                state.stamp = stamp
                state.readAt = now
                state.problems = problems
            }
            return (problems.subtracting(state.problems), state.keys.count)
        }
        for problem in newProblems.sorted() { logger.warning("authorized keys: \(problem)") }
        if keys.count != before || force {
            logger.info("authorized keys: \(keys.count) in \(folder)")
        }
    }

    /// The keys of the certificates in the folder, by file name, and what was wrong.
    private func read() -> ([CurveKey: String], Set<String>) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            return ([:], ["\(folder): cannot read the folder; no key is accepted"])
        }
        var keys: [CurveKey: String] = [:]
        var problems: Set<String> = []
        let candidates = names.filter { !$0.hasPrefix(".") && ($0.hasSuffix(".pub") || $0.hasSuffix(".key")) }.sorted()
        if candidates.count > Self.maxFiles {
            problems.insert("\(folder): \(candidates.count) certificates, only the first \(Self.maxFiles) are read")
        }
        for name in candidates.prefix(Self.maxFiles) {
            let path = (folder as NSString).appendingPathComponent(name)
            do {
                let certificate = try CurveCertificate.load(path: path)
                if certificate.secretKey != nil {
                    problems.insert("\(path): holds a secret key; only public certificates (.pub) belong here")
                }
                keys[certificate.publicKey] = name
            } catch {
                problems.insert("\(error); skipped")
            }
        }
        return (keys, problems)
    }

    /// What changes when an entry of the folder is added, removed or renamed.
    private static func stamp(_ folder: String) -> [Int] {
        var info = stat()
        guard stat(folder, &info) == 0 else { return [] }
        // Device and inode numbers are unsigned 64-bit; only equality matters here.
        return [Int(truncatingIfNeeded: info.st_dev), Int(truncatingIfNeeded: info.st_ino),
                info.st_mtim.tv_sec, info.st_mtim.tv_nsec, info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
    }
}
