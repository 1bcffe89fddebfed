/// Why a request made with `ZMQEndpoint.request` ended without a reply.
/// Task cancellation surfaces as `CancellationError`.
public enum ZMQRequestError: Error, Sendable, Equatable {
    /// No reply arrived within the timeout.
    case timedOut(Duration)
    /// The endpoint shut down while the request was pending.
    case shutdown
    /// The reply went past the endpoint's bound (`ZMQEndpointConfiguration.receiveLimit`) and
    /// was dropped: it had `frames` frames of `bytes` bytes in all.
    case replyDropped(frames: Int, bytes: Int)
}
