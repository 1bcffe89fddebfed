import SqueezeProtocol

/// Where a job's events go: the stream of whoever started it, and the streams of clients that
/// attached since (`squeeze attach`, or `submit` finding the coordinator again). Each stream is
/// drained by its own task that sends to one client, so a slow client holds nobody else back.
struct JobEventSink: Sendable {
    private let primary: AsyncStream<JobEvent>.Continuation
    private var attached: [AsyncStream<JobEvent>.Continuation] = []

    init(_ primary: AsyncStream<JobEvent>.Continuation) {
        self.primary = primary
    }

    /// Sends `event` to every stream.
    func yield(_ event: JobEvent) {
        primary.yield(event)
        for stream in attached { stream.yield(event) }
    }

    /// Adds a stream; it gets the events from now on.
    mutating func attach(_ stream: AsyncStream<JobEvent>.Continuation) {
        attached.append(stream)
    }

    /// Ends every stream (after `finished`).
    func finish() {
        primary.finish()
        for stream in attached { stream.finish() }
    }
}
