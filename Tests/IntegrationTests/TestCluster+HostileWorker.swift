import Foundation

extension TestCluster {
    /// Starts Tests/Peers/bad_worker.py (a worker written from docs/protocol.md that misbehaves
    /// on purpose) against this cluster's worker endpoint: `id` with `slots` slots, in `mode`
    /// (see the script; nil answers every item wrongly). The caller keeps the process; it is
    /// stopped when released.
    func startHostileWorker(
        python: String, id: String, slots: Int, mode: String? = nil, in folder: URL, environment: [String: String] = [:]
    ) throws -> BackgroundProcess {
        try BackgroundProcess(
            id, executable: URL(fileURLWithPath: python),
            arguments: [ResultCheckTests.badWorker, workerEndpoint, id, "\(slots)"] + (mode.map { [$0] } ?? []),
            in: folder, environment: environment)
    }
}
