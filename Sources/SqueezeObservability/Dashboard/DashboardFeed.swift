import Foundation
import NIOConcurrencyHelpers
import SqueezeProtocol

/// Takes the coordinator's status once a second for the live page: one reader whatever the
/// number of open pages, so viewers never load the coordinator's actor. Keeps the newest
/// snapshot, already encoded, and ten minutes of cluster throughput for the chart.
public final class DashboardFeed: Sendable {
    private struct State: Sendable {
        var latest: [UInt8]?
        var throughput: [ThroughputSample] = []
        var samples = 0
    }

    private let status: @Sendable () async -> ClusterStatus
    private let version: String
    private let started = Date()
    private let state = NIOLockedValueBox(State())

    /// Throughput samples kept: ten minutes, one every two seconds.
    static let throughputSamples = 300

    /// A feed that asks `status` for the coordinator's state.
    public init(version: String, status: @escaping @Sendable () async -> ClusterStatus) {
        self.version = version
        self.status = status
    }

    /// The newest snapshot as JSON (taking one now if none was taken yet).
    public func latestJSON() async -> [UInt8] {
        if let latest = state.withLockedValue({ $0.latest }) { return latest }
        return await refresh()
    }

    /// Takes a snapshot every second until cancelled.
    public func run() async {
        while !Task.isCancelled {
            _ = await refresh()
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Takes a snapshot now and keeps it.
    @discardableResult
    func refresh() async -> [UInt8] {
        let status = await status()
        let now = Date()
        let rate = status.workers.reduce(0) { $0 + $1.megabytesPerSecond }
        let history = state.withLockedValue { state -> [ThroughputSample] in
            if state.samples % 2 == 0 {
                state.throughput.append(ThroughputSample(t: now.timeIntervalSince1970, megabytesPerSecond: rate))
                if state.throughput.count > Self.throughputSamples { state.throughput.removeFirst(state.throughput.count - Self.throughputSamples) }
            }
            state.samples &+= 1
            return state.throughput
        }
        let snapshot = Self.snapshot(of: status, version: version, at: now, uptime: now.timeIntervalSince(started), throughput: history)
        let json = (try? JSONEncoder().encode(snapshot)).map(Array.init) ?? Array("{}".utf8)
        state.withLockedValue { $0.latest = json }
        return json
    }

    /// The page's view of `status`.
    static func snapshot(of status: ClusterStatus, version: String, at now: Date, uptime: Double, throughput: [ThroughputSample]) -> DashboardSnapshot {
        let cluster = DashboardCluster(
            workers: status.workers.count, slots: status.workers.reduce(0) { $0 + $1.slots },
            busySlots: status.workers.reduce(0) { $0 + $1.busy }, itemsInFlight: status.workers.reduce(0) { $0 + $1.busy },
            megabytesPerSecond: status.workers.reduce(0) { $0 + $1.megabytesPerSecond },
            coordinatorCPUSeconds: status.coordinatorCPUSeconds, resultsChecked: status.resultsChecked ?? true,
            malformedMessages: status.malformedMessages, lateResults: status.lateResults, refusedResults: status.refusedResults)
        return DashboardSnapshot(
            version: version, generatedAt: now.timeIntervalSince1970, uptimeSeconds: uptime, cluster: cluster,
            workers: status.workers, jobs: status.jobs.map(DashboardJob.init), throughput: throughput)
    }
}
