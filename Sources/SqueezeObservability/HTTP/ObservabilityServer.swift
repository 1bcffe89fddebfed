import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP side of `--http`: `GET /metrics` for Prometheus, and on a coordinator the live
/// page (`GET /`), its data (`GET /api/status`) and its stream of server-sent events
/// (`GET /api/events`). Hummingbird serves it on its own event loops: a request never waits on
/// the coordinator, which the feed reads once a second. A `Service`: graceful shutdown ends
/// the event streams, so a page left open never holds the process up.
public struct ObservabilityServer: Service {
    private let address: HTTPAddress
    private let metrics: MetricsExposition
    private let feed: DashboardFeed?
    private let logger: Logger
    private let onBound: @Sendable (HTTPAddress) -> Void

    /// A server on `address` for `metrics` and, given a feed, the live page. `onBound` learns
    /// the address bound (the real port when asked for port 0).
    public init(
        address: HTTPAddress, metrics: MetricsExposition, feed: DashboardFeed?, logger: Logger,
        onBound: @escaping @Sendable (HTTPAddress) -> Void = { _ in }
    ) {
        self.address = address
        self.metrics = metrics
        self.feed = feed
        self.logger = logger
        self.onBound = onBound
    }

    /// Serves until graceful shutdown or cancellation; throws when it cannot bind.
    public func run() async throws {
        let address = address, onBound = onBound
        let app = Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: "squeeze"),
            onServerRunning: { channel in
                var bound = address
                bound.port = channel.localAddress?.port ?? address.port
                onBound(bound)
            },
            logger: logger)
        guard let feed else {
            try await app.run()
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await feed.run() }
            group.addTask { try await app.run() }
            // The server ends first (shutdown or a bind failure); the feed then stops.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        let metrics = metrics
        router.get("metrics") { _, _ -> Response in
            Self.response(metrics.render(), type: MetricsExposition.contentType)
        }
        guard let feed else {
            router.get("/") { _, _ -> Response in
                Self.response(Array("squeeze worker: Prometheus metrics at /metrics\n".utf8), type: "text/plain; charset=utf-8")
            }
            return router
        }
        router.get("/") { _, _ -> Response in
            Self.response(Array(DashboardPage.html.utf8), type: "text/html; charset=utf-8")
        }
        router.get("api/status") { _, _ -> Response in
            Self.response(await feed.latestJSON(), type: "application/json; charset=utf-8")
        }
        router.get("api/events") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                // Until the client goes (a write throws) or the server shuts down.
                while !Task.isCancelled, !Task.isShuttingDownGracefully {
                    var event = ByteBuffer(string: "event: status\ndata: ")
                    event.writeBytes(await feed.latestJSON())
                    event.writeString("\n\n")
                    try await writer.write(event)
                    try? await Task.sleep(for: .seconds(1))
                }
                try await writer.finish(nil)
            })
        }
        return router
    }

    private static func response(_ bytes: [UInt8], type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
