import ServiceLifecycle
import SqueezeWorker

/// Runs a worker under swift-service-lifecycle: graceful shutdown (SIGTERM, SIGINT) makes it
/// stop taking work, finish or hand back what it holds within its drain grace, say goodbye
/// and return.
struct WorkerService: Service {
    let worker: Worker

    func run() async throws {
        await withGracefulShutdownHandler {
            await worker.run()
        } onGracefulShutdown: {
            worker.drain()
        }
    }
}
