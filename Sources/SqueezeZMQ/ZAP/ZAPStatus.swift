/// The status codes of a ZAP reply (ZeroMQ RFC 27).
public enum ZAPStatus: String, Sendable {
    /// The peer may connect.
    case success = "200"
    /// A temporary failure; the peer may try again.
    case temporaryError = "300"
    /// The peer is not allowed.
    case authenticationFailure = "400"
    /// The handler could not judge the request (a malformed one, for example).
    case internalError = "500"
}
