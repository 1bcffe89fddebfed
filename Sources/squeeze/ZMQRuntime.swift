import SqueezeZMQ

/// The process's ZeroMQ context, terminated off the cooperative pool when the command is done.
enum ZMQRuntime {
    /// Runs `body` with a fresh context, then terminates it, waiting at most `grace` (long
    /// enough for lingering last messages, short enough never to hang an exiting process).
    static func run<T>(grace: Duration = .seconds(3), _ body: (ZMQContext) async throws -> T) async throws -> T {
        let context = try ZMQContext()
        let result: Result<T, any Error>
        do {
            result = .success(try await body(context))
        } catch {
            result = .failure(error)
        }
        _ = await context.terminate(timeout: grace)
        return try result.get()
    }
}
