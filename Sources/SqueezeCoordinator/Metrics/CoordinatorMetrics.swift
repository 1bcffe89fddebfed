import CoreMetrics
import SqueezeProtocol

/// What the coordinator counts for Prometheus (`--http`, `GET /metrics`), through swift-metrics
/// with the factory it is given: a registry of its own per coordinator, so tests and embedded
/// runs never share the process-wide `MetricsSystem`. Names follow Prometheus conventions:
/// units in the name, `_total` on counters, labels from small fixed sets (never file names).
/// docs/operations.md lists each with its meaning.
public struct CoordinatorMetrics: Sendable {
    /// Uncompressed bytes of files published.
    let inputBytes: Counter
    /// Compressed bytes written into outputs.
    let outputBytes: Counter
    /// Uncompressed bytes that passed through the coordinator to remote workers.
    let relayedBytes: Counter
    /// Files by result: `done`, `failed`, `skipped`.
    let filesDone: Counter, filesFailed: Counter, filesSkipped: Counter
    /// Jobs the coordinator holds, by state (running, and ended ones in its history).
    let jobs: [JobState: Gauge]
    /// Jobs ended since start, by state.
    let jobsEnded: [JobState: Counter]
    /// Connected workers, their slots, and slots busy.
    let workers: Gauge, workerSlots: Gauge, quarantinedWorkers: Gauge
    /// Items out with workers, and items planned and waiting for one.
    let itemsInFlight: Gauge, itemsQueued: Gauge
    /// Items taken back from a worker (it left, fell silent, went past its deadline, or its
    /// answer was refused) to go out again.
    let itemsRequeued: Counter
    /// Items a worker registering again still held and finished, instead of going out again.
    let itemsKept: Counter
    /// Outputs shared-storage workers renamed into place themselves (`publish`).
    let outputsPublishedByWorkers: Counter
    /// `publish` grants a writer finished instead of their worker (it left, or took too long).
    let grantsTakenOver: Counter
    /// Batches published whole: dispatched, checked and granted as one message each.
    let batchesPublished: Counter
    /// Scan items sent to workers, listed here, and listings refused.
    let scansByWorkers: Counter, scansLocal: Counter, scansRefused: Counter
    /// Listings by workers checked by a worker of another principal, and here; digests that
    /// differed; and entries the coordinator found in ranges a listing claimed and left out.
    let listingChecksByWorkers: Counter, listingChecksWithBatches: Counter, listingChecksLocal: Counter, listingDifferences: Counter, listingLeftOut: Counter
    /// Batches turned into ordinary bundles (`JobRecord.expand`): handled file by file.
    let batchesExpanded: Counter
    /// Answers dropped because their item was answered already or their job had ended.
    let lateResults: Counter
    /// Malformed or unexpected messages dropped.
    let malformedMessages: Counter
    /// Answers refused by the result check.
    let refusedResults: Counter
    /// Stitches refused by the check of their segments.
    let refusedStitches: Counter
    /// Answers the coordinator checked because no able worker was of another principal.
    let checksForIndependence: Counter
    /// Audits that caught a verifier calling a bad answer good.
    let collusionsCaught: Counter
    /// From handing an item out to its answer.
    let itemDuration: Timer
    /// Writing a batch of blocks into an output.
    let writeDuration: Timer
    /// Making a batch of sealed outputs durable (syncfs, fsync) and renaming them into place.
    let fsyncDuration: Timer

    /// Bucket bounds, in seconds, of the duration histograms, by metric name: the Prometheus
    /// backend is configured with them (`MetricsExposition`).
    public static let durationBuckets: [String: [Double]] = [
        "squeeze_item_duration_seconds": [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        "squeeze_write_duration_seconds": [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
        "squeeze_fsync_duration_seconds": [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    ]

    /// Metrics made by `factory`; a no-op factory makes them free.
    public init(factory: any MetricsFactory) {
        inputBytes = Counter(label: "squeeze_input_bytes_total", factory: factory)
        outputBytes = Counter(label: "squeeze_output_bytes_total", factory: factory)
        relayedBytes = Counter(label: "squeeze_relayed_bytes_total", factory: factory)
        filesDone = Counter(label: "squeeze_files_total", dimensions: [("result", "done")], factory: factory)
        filesFailed = Counter(label: "squeeze_files_total", dimensions: [("result", "failed")], factory: factory)
        filesSkipped = Counter(label: "squeeze_files_total", dimensions: [("result", "skipped")], factory: factory)
        let states: [JobState] = [.running, .completed, .cancelled, .failed]
        jobs = Dictionary(uniqueKeysWithValues: states.map { ($0, Gauge(label: "squeeze_jobs", dimensions: [("state", $0.rawValue)], factory: factory)) })
        jobsEnded = Dictionary(uniqueKeysWithValues: states.dropFirst().map {
            ($0, Counter(label: "squeeze_jobs_ended_total", dimensions: [("state", $0.rawValue)], factory: factory))
        })
        workers = Gauge(label: "squeeze_workers", factory: factory)
        workerSlots = Gauge(label: "squeeze_worker_slots", factory: factory)
        quarantinedWorkers = Gauge(label: "squeeze_workers_quarantined", factory: factory)
        itemsInFlight = Gauge(label: "squeeze_items_in_flight", factory: factory)
        itemsQueued = Gauge(label: "squeeze_items_queued", factory: factory)
        itemsRequeued = Counter(label: "squeeze_items_requeued_total", factory: factory)
        itemsKept = Counter(label: "squeeze_items_kept_total", factory: factory)
        lateResults = Counter(label: "squeeze_late_results_total", factory: factory)
        outputsPublishedByWorkers = Counter(label: "squeeze_outputs_published_by_workers_total", factory: factory)
        grantsTakenOver = Counter(label: "squeeze_publish_grants_taken_over_total", factory: factory)
        batchesPublished = Counter(label: "squeeze_batches_published_total", factory: factory)
        scansByWorkers = Counter(label: "squeeze_scans_total", dimensions: [("by", "worker")], factory: factory)
        scansLocal = Counter(label: "squeeze_scans_total", dimensions: [("by", "coordinator")], factory: factory)
        scansRefused = Counter(label: "squeeze_scans_refused_total", factory: factory)
        listingChecksByWorkers = Counter(label: "squeeze_listing_checks_total", dimensions: [("by", "worker")], factory: factory)
        listingChecksWithBatches = Counter(label: "squeeze_listing_checks_total", dimensions: [("by", "batch")], factory: factory)
        listingChecksLocal = Counter(label: "squeeze_listing_checks_total", dimensions: [("by", "coordinator")], factory: factory)
        listingDifferences = Counter(label: "squeeze_listing_differences_total", factory: factory)
        listingLeftOut = Counter(label: "squeeze_listing_left_out_total", factory: factory)
        batchesExpanded = Counter(label: "squeeze_batches_expanded_total", factory: factory)
        malformedMessages = Counter(label: "squeeze_malformed_messages_total", factory: factory)
        refusedResults = Counter(label: "squeeze_refused_results_total", factory: factory)
        refusedStitches = Counter(label: "squeeze_refused_stitches_total", factory: factory)
        checksForIndependence = Counter(label: "squeeze_checks_for_independence_total", factory: factory)
        collusionsCaught = Counter(label: "squeeze_collusions_caught_total", factory: factory)
        itemDuration = Timer(label: "squeeze_item_duration_seconds", factory: factory)
        writeDuration = Timer(label: "squeeze_write_duration_seconds", factory: factory)
        fsyncDuration = Timer(label: "squeeze_fsync_duration_seconds", factory: factory)
    }
}

extension CoordinatorMetrics {
    /// Records `duration` in `timer`, to the nanosecond.
    static func record(_ duration: Duration, in timer: Timer) {
        let (seconds, attoseconds) = duration.components
        timer.recordNanoseconds(max(0, seconds) * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
