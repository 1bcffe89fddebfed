/// Why a client could not get an answer from the coordinator.
public enum ClientError: Error, Sendable, Equatable {
    /// Nothing was ever heard from the coordinator within the deadline.
    case unreachable(address: String, seconds: Double)
    /// As `unreachable`, for a client with CURVE keys: a coordinator that refuses its key
    /// looks the same from here, since a refused handshake gets no answer.
    case unreachableWithKey(address: String, seconds: Double)
    /// The coordinator answered before but then fell silent.
    case lost(address: String, seconds: Double)
    /// The coordinator refused the request; the message is one line for the user.
    case refused(String)
    /// The coordinator answered with a message this request does not expect.
    case unexpectedReply(String)
}

extension ClientError: CustomStringConvertible {
    /// One line for the user.
    public var description: String {
        switch self {
        case .unreachable(let address, let seconds):
            "cannot reach the coordinator at \(address) (no answer within \(Self.format(seconds)) s)"
        case .unreachableWithKey(let address, let seconds):
            "cannot reach the coordinator at \(address) (no answer within \(Self.format(seconds)) s; with CURVE that is also what a coordinator does that does not have this client's public key in its --authorized folder, or whose public key is not --coordinator-key)"
        case .lost(let address, let seconds):
            "lost contact with the coordinator at \(address) (silent for \(Self.format(seconds)) s)"
        case .refused(let message):
            message
        case .unexpectedReply(let what):
            "unexpected reply from the coordinator: \(what)"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))" : String(format: "%.1f", seconds)
    }
}
