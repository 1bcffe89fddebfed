import CoreMetrics
import NIOConcurrencyHelpers

/// A metrics factory whose counters keep their totals (by label) and every negative
/// increment, which a real Prometheus counter traps on; everything else counts nothing.
final class CountingMetrics: MetricsFactory, Sendable {
    private let state = NIOLockedValueBox<(totals: [String: Int64], negative: [String])>(([:], []))

    /// A counter's total so far.
    func total(_ label: String) -> Int64 { state.withLockedValue { $0.totals[label] ?? 0 } }
    /// Labels of counters that were asked to go down.
    var negativeIncrements: [String] { state.withLockedValue { $0.negative } }

    private final class Counting: CounterHandler, Sendable {
        let label: String
        let owner: CountingMetrics
        init(label: String, owner: CountingMetrics) {
            self.label = label
            self.owner = owner
        }
        func increment(by amount: Int64) {
            owner.state.withLockedValue { state in
                if amount < 0 { state.negative.append(label) } else { state.totals[label, default: 0] += amount }
            }
        }
        func reset() { owner.state.withLockedValue { $0.totals[label] = 0 } }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Counting(label: label, owner: self) }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        NOOPMetricsHandler.instance.makeTimer(label: label, dimensions: dimensions)
    }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
