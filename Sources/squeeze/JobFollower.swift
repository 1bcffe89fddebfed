import Foundation
import SqueezeClient
import SqueezeProtocol

/// Follows one job on a coordinator until its `finished`, for `submit` and `attach`. When the
/// coordinator falls silent mid-job (it crashed, or is restarting), the follower keeps asking
/// to attach again for `grace`: a coordinator back with its journal resumes the job and the
/// follower carries on, so a restart costs the user nothing but a pause.
struct JobFollower {
    let client: ClusterClient
    let jobID: UInt64
    let mode: OutputMode
    /// Whether re-attaching takes the job over (its silence then cancels the job, as the
    /// submitter's does) or only watches it.
    let owner: Bool
    /// Where the job's `trace` events go, for `--trace`.
    var trace: TraceOutput? = nil
    /// How long a silent coordinator is waited for.
    var grace: Duration = .seconds(30)

    /// The job's summary, nil if the events ended without one; throws when the coordinator
    /// stays away past the grace period or comes back without the job.
    func run() async throws -> JobSummary? {
        client.follow(job: jobID)
        while true {
            do {
                return try await client.withLiveness { [mode, trace] in
                    var renderer = ProgressRenderer(mode: mode, trace: trace)
                    return await renderer.follow(client.jobEvents())
                }
            } catch let error as ClientError {
                guard case .lost = error else { throw error }
                try await reattach(after: error)
            }
        }
    }

    /// Asks to attach again until the coordinator answers or `grace` runs out.
    private func reattach(after lost: ClientError) async throws {
        note("\(lost); waiting up to \(Int(grace.components.seconds)) s for it to come back to job \(jobID)")
        let deadline = ContinuousClock.now + grace
        // Any answer proves the coordinator back while the job is not followed.
        client.follow(job: 0)
        while ContinuousClock.now < deadline {
            do {
                _ = try await client.withLiveness { [client, jobID, owner] in
                    try await client.attach(job: jobID, owner: owner)
                }
                client.follow(job: jobID)
                note("the coordinator is back; following job \(jobID) again")
                return
            } catch ClientError.refused(let message) {
                throw ClientError.refused("\(lost); the coordinator came back without job \(jobID): \(message)")
            } catch let error as ClientError {
                switch error {
                case .lost, .unreachable, .unreachableWithKey: continue
                default: throw error
                }
            }
        }
        throw lost
    }

    private func note(_ line: String) {
        FileHandle.standardError.write(Data("squeeze: \(line)\n".utf8))
    }
}
