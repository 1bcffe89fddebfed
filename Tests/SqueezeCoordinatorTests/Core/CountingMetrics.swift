import CoreMetrics
import NIOConcurrencyHelpers

/// A metrics factory whose counters keep their totals (by label, and by label and dimensions)
/// and every negative increment, which a real Prometheus counter traps on; everything else
/// counts nothing.
final class CountingMetrics: MetricsFactory, Sendable {
    private let state = NIOLockedValueBox<(totals: [String: Int64], negative: [String])>(([:], []))

    /// A counter's total so far, over all its dimensions.
    func total(_ label: String) -> Int64 { state.withLockedValue { $0.totals[label] ?? 0 } }
    /// The total so far of the counter with `label` and exactly `dimensions`.
    func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        state.withLockedValue { $0.totals[Self.key(label, dimensions)] ?? 0 }
    }

    /// A counter's key by its label and dimensions, as Prometheus writes it.
    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        label + "{" + dimensions.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ",") + "}"
    }
    /// Labels of counters that were asked to go down.
    var negativeIncrements: [String] { state.withLockedValue { $0.negative } }

    private final class Counting: CounterHandler, Sendable {
        let label: String
        let key: String
        let owner: CountingMetrics
        init(label: String, key: String, owner: CountingMetrics) {
            self.label = label
            self.key = key
            self.owner = owner
        }
        func increment(by amount: Int64) {
            owner.state.withLockedValue { state in
                if amount < 0 {
                    state.negative.append(label)
                } else {
                    state.totals[label, default: 0] += amount
                    state.totals[key, default: 0] += amount
                }
            }
        }
        func reset() { owner.state.withLockedValue { $0.totals[label] = 0 } }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        Counting(label: label, key: Self.key(label, dimensions), owner: self)
    }
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
