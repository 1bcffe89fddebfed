import CoreMetrics
import Prometheus

/// One process's Prometheus metrics: the registry `GET /metrics` renders, and the
/// swift-metrics factory the coordinator or worker counts through. Not bootstrapped into
/// `MetricsSystem`: each coordinator or worker is given the factory (tests run many per process).
public final class MetricsExposition: Sendable {
    /// The registry, rendered in the Prometheus text format.
    public let registry: PrometheusCollectorRegistry
    /// The factory to hand to `CoordinatorConfiguration` or `WorkerConfiguration`.
    public let factory: any MetricsFactory

    /// A fresh registry whose duration histograms have `buckets` (seconds, by metric name).
    public init(durationBuckets buckets: [String: [Double]]) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = buckets.mapValues { $0.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) } }
        self.registry = registry
        self.factory = factory
    }

    /// The metrics in the Prometheus text exposition format (version 0.0.4).
    public func render() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// The content type of `render()`.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
