import Foundation
import NIOConcurrencyHelpers
import SqueezeIO
import SqueezeObservability
import SqueezeProtocol

/// Gathers a job's `trace` events for `--trace FILE` and writes them, as a Chrome trace, when
/// the job ends (however it ends: a failed job's trace shows why).
final class TraceOutput: Sendable {
    private let path: String
    private let trace = NIOLockedValueBox<ChromeTrace?>(nil)

    /// A trace to be written to `path`.
    init(path: String) {
        self.path = path
    }

    /// Names the job, once it is accepted.
    func started(_ start: JobStart) {
        trace.withLockedValue { trace in
            if trace == nil { trace = ChromeTrace(title: "job \(start.jobID): \(start.source)") }
        }
    }

    /// Adds one chunk.
    func add(_ chunk: TraceChunk) {
        trace.withLockedValue { trace in
            if trace == nil { trace = ChromeTrace(title: "job \(chunk.jobID)") }
            trace?.add(chunk)
        }
    }

    /// Writes the file off the cooperative pool and says so on stderr (unless `json`, whose
    /// stdout is for scripts and whose stderr stays quiet on success); a failure is one line.
    func finish(json: Bool) async throws {
        do {
            let count = try await BlockingIOPool.runOnce { try self.write() }
            if !json { FileHandle.standardError.write(Data("squeeze: trace of \(count) item dispatches written to \(path)\n".utf8)) }
        } catch {
            throw CommandFailure.exit("--trace \(path): \(error)")
        }
    }

    /// Writes the file (replacing it through a rename, so a reader never sees half of it);
    /// returns the dispatches it holds. Blocking: call on a thread of the project's own.
    func write() throws -> Int {
        let trace = self.trace.withLockedValue { $0 } ?? ChromeTrace(title: "no job")
        let data = try trace.render()
        let temporary = path + ".partial"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else { throw FileSystemError(operation: "rename", path: path, errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        return trace.attemptCount
    }
}
