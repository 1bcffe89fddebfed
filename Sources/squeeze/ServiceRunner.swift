import Logging
import ServiceLifecycle

/// Runs long-lived services with SIGTERM and SIGINT as graceful shutdown, escalating to
/// cancellation if they have not finished after `grace`.
enum ServiceRunner {
    /// Runs `service` alone.
    static func run(_ service: some Service, grace: Duration, logger: Logger) async throws {
        try await run([service], grace: grace, logger: logger)
    }

    /// Runs `services` together: shutdown reaches them last to first, each ending before the
    /// one before it is told, so a first service (the HTTP server) serves to the end of the
    /// rest. When any ends or fails, the group ends.
    static func run(_ services: [any Service], grace: Duration, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = grace
        try await ServiceGroup(configuration: configuration).run()
    }
}
