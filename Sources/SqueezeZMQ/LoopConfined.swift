/// A value only its loop's thread touches: an endpoint's socket and what goes with it, reached
/// from the poll and from sends made on that thread. Sendable because every access checks
/// (in debug builds) that it runs on the loop; Thread Sanitizer checks the rest.
final class LoopConfined<Value>: @unchecked Sendable {
    private let loop: ZMQLoop
    private var value: Value

    init(_ value: Value, on loop: ZMQLoop) {
        self.value = value
        self.loop = loop
    }

    /// Runs `body` with the value; the caller must be on the loop's thread.
    func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        assert(loop.isCurrent, "\(loop.name): touched off its thread")
        return try body(&value)
    }
}
