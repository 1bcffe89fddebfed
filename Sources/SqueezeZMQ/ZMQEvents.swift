/// An endpoint's incoming messages and send failures, in arrival order, as an async sequence
/// over its bounded inbox. Ends when the endpoint stops; a cancelled reader gets nil.
public struct ZMQEvents: AsyncSequence, Sendable {
    /// The events.
    public typealias Element = ZMQEndpointEvent
    /// Never throws.
    public typealias Failure = Never

    let inbox: ZMQInbox

    /// Reads the inbox.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: ZMQInbox

        /// The next event, or nil at the end.
        public mutating func next() async -> ZMQEndpointEvent? {
            await inbox.next()
        }

        /// The next event, or nil at the end (the typed-throws form).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Never) -> ZMQEndpointEvent? {
            await inbox.next()
        }
    }

    /// An iterator over the endpoint's events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inbox: inbox)
    }
}
