/// One authentication request from libzmq to the ZAP handler (ZeroMQ RFC 27), as the handler's
/// REP socket receives it: version, request id, domain, address, identity, mechanism, then
/// the mechanism's credentials (for CURVE, the client's 32-byte public key).
public struct ZAPRequest: Sendable, Equatable {
    /// The only version there is.
    public static let version = "1.0"

    /// Echoed in the reply.
    public var requestID: [UInt8]
    /// The ZAP domain of the socket the peer connects to (Squeeze: `clients` or `workers`).
    public var domain: String
    /// The peer's IP address.
    public var address: String
    /// The routing id the peer announced (may be empty).
    public var routingID: [UInt8]
    /// `NULL`, `PLAIN`, `CURVE` or `GSSAPI`.
    public var mechanism: String
    /// The mechanism's credential frames.
    public var credentials: [[UInt8]]

    /// Parses the frames of a request; throws a `ZAPRequestError` (answered with 500) for a
    /// wrong frame count, another version, or CURVE credentials that are not one 32-byte key.
    public init(frames: [ZMQFrame]) throws(ZAPRequestError) {
        let requestID = frames.count > 1 ? Array(frames[1]) : []
        guard frames.count >= 6 else {
            throw ZAPRequestError(requestID: requestID, reason: "\(frames.count) frames, expected at least 6")
        }
        guard Array(frames[0]) == Array(Self.version.utf8) else {
            throw ZAPRequestError(requestID: requestID, reason: "version \(Self.printable(Array(frames[0]))), expected \(Self.version)")
        }
        self.requestID = requestID
        domain = Self.printable(Array(frames[2]))
        address = Self.printable(Array(frames[3]))
        routingID = Array(frames[4])
        mechanism = Self.printable(Array(frames[5]))
        credentials = frames.dropFirst(6).map { Array($0) }
        if mechanism == "CURVE", credentials.count != 1 || credentials[0].count != CurveKey.byteCount {
            throw ZAPRequestError(requestID: requestID, reason: "CURVE credentials must be one 32-byte key")
        }
    }

    /// The client's public key, for a CURVE request.
    public var clientKey: CurveKey? {
        guard mechanism == "CURVE", let first = credentials.first else { return nil }
        return CurveKey(bytes: first)
    }

    /// The frames of the reply to this request.
    public func reply(_ decision: ZAPDecision) -> [[UInt8]] {
        switch decision {
        case .allow(let userID): Self.reply(requestID: requestID, status: .success, text: "OK", userID: userID)
        case .deny(let status, let text): Self.reply(requestID: requestID, status: status, text: text, userID: "")
        }
    }

    /// Reply frames: version, request id, status code, status text, user id, empty metadata.
    public static func reply(requestID: [UInt8], status: ZAPStatus, text: String, userID: String) -> [[UInt8]] {
        [Array(version.utf8), requestID, Array(status.rawValue.utf8), Array(text.utf8), Array(userID.utf8), []]
    }

    /// Bytes as text safe for one log line: at most 100 characters, control characters and
    /// invalid UTF-8 shown as `?`.
    static func printable(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(400), as: UTF8.self)
        return String(text.unicodeScalars.prefix(100).map { scalar in
            scalar.properties.generalCategory == .control || scalar == "\u{FFFD}" ? "?" : Character(scalar)
        })
    }
}
