import ServiceLifecycle
import SqueezeCoordinator

/// Runs a coordinator under swift-service-lifecycle: graceful shutdown (SIGTERM, SIGINT)
/// stops taking jobs, fails the running ones (their clients are told, temporaries removed)
/// and returns once the sockets are closed.
struct CoordinatorService: Service {
    let coordinator: Coordinator
    let workerEndpoints: [String]
    let clientEndpoints: [String]
    let onReady: @Sendable (CoordinatorEndpoints) -> Void

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await coordinator.run(workerEndpoints: workerEndpoints, clientEndpoints: clientEndpoints, onReady: onReady)
        } onGracefulShutdown: {
            coordinator.shutdown()
        }
    }
}
