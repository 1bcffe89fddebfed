/// A ZAP request that cannot be judged: answered with 500 and this reason.
public struct ZAPRequestError: Error, Sendable, Equatable {
    /// The request id, echoed in the reply (empty when the request had none).
    public var requestID: [UInt8]
    /// Why the request is malformed.
    public var reason: String

    /// An error for the request with `requestID`.
    public init(requestID: [UInt8], reason: String) {
        self.requestID = requestID
        self.reason = reason
    }
}
