/// Why a request made with `ZMQEndpoint.request` ended without a reply.
/// Task cancellation surfaces as `CancellationError`.
public enum ZMQRequestError: Error, Sendable, Equatable {
    /// No reply arrived within the timeout.
    case timedOut(Duration)
    /// The endpoint shut down while the request was pending.
    case shutdown
}
