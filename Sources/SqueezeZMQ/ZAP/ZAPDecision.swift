/// A ZAP handler's answer to one well-formed request.
public enum ZAPDecision: Sendable, Equatable {
    /// Let the peer in; libzmq attaches `userID` to its messages.
    case allow(userID: String)
    /// Refuse the peer with `status` (400, or 300/500) and a short text.
    case deny(ZAPStatus, String)
}
