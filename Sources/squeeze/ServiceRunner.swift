import Logging
import ServiceLifecycle

/// Runs one long-lived service with SIGTERM and SIGINT as graceful shutdown, escalating to
/// cancellation if it has not finished after `grace`.
enum ServiceRunner {
    static func run(_ service: some Service, grace: Duration, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: service)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = grace
        try await ServiceGroup(configuration: configuration).run()
    }
}
