import CoreMetrics
import SqueezeIO
import SqueezeProtocol

/// What a worker counts for Prometheus (`squeeze worker --http`, `GET /metrics`), through
/// swift-metrics with the factory it is given. docs/operations.md lists each with its meaning.
public struct WorkerMetrics: Sendable {
    /// Items answered, by result: `done` or `failed`.
    let itemsDone: Counter, itemsFailed: Counter
    /// Uncompressed bytes compressed.
    let inputBytes: Counter
    /// Compressed bytes produced.
    let outputBytes: Counter
    /// Seconds slots spent compressing (reading and writing excluded).
    let compressSeconds: FloatingPointCounter
    /// From a slot taking an item to its answer.
    let itemDuration: Timer
    /// Slots, and slots working on an item now.
    let slots: Gauge, busySlots: Meter
    /// 1 while registered with a coordinator, else 0.
    let connected: Gauge
    /// Malformed messages dropped.
    let malformedMessages: Counter

    /// Bucket bounds, in seconds, of the duration histograms, by metric name.
    public static let durationBuckets: [String: [Double]] = [
        "squeeze_worker_item_duration_seconds": [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ]

    /// Metrics made by `factory`.
    public init(factory: any MetricsFactory) {
        itemsDone = Counter(label: "squeeze_worker_items_total", dimensions: [("result", "done")], factory: factory)
        itemsFailed = Counter(label: "squeeze_worker_items_total", dimensions: [("result", "failed")], factory: factory)
        inputBytes = Counter(label: "squeeze_worker_input_bytes_total", factory: factory)
        outputBytes = Counter(label: "squeeze_worker_output_bytes_total", factory: factory)
        compressSeconds = FloatingPointCounter(label: "squeeze_worker_compress_seconds_total", factory: factory)
        itemDuration = Timer(label: "squeeze_worker_item_duration_seconds", factory: factory)
        slots = Gauge(label: "squeeze_worker_slots", factory: factory)
        busySlots = Meter(label: "squeeze_worker_busy_slots", factory: factory)
        connected = Gauge(label: "squeeze_worker_connected", factory: factory)
        malformedMessages = Counter(label: "squeeze_worker_malformed_messages_total", factory: factory)
    }
}

extension WorkerMetrics {
    /// Counts an answered item: its time, its bytes in and out.
    func count(_ answer: WireMessage, startedAt: Int64, phases: ItemPhases) {
        itemsDone.increment()
        itemDuration.recordMicroseconds(max(0, MonotonicClock.micros() - startedAt))
        compressSeconds.increment(by: Double(phases.compressMicros) / 1e6)
        switch answer {
        case .result(let result):
            inputBytes.increment(by: result.blocks.reduce(0) { $0 + $1.rawLength })
            outputBytes.increment(by: result.blocks.reduce(0) { $0 + $1.bytes.count })
        case .resultRef(let result):
            count(result)
        case .scanned(let report):
            if let result = report.result { count(result) }
        default:
            break
        }
    }

    /// Counts a batch's pieces: the bytes its files held and the bytes written for them.
    private func count(_ result: RefResult) {
        inputBytes.increment(by: result.pieces.reduce(0) { $0 + ($1.failure == nil ? $1.rawLength : 0) })
        outputBytes.increment(by: result.pieces.reduce(UInt64(0)) { $0 + ($1.failure == nil ? $1.pieceLength : 0) })
    }
}
