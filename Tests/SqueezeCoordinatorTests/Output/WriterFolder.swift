import Foundation
import SqueezeIO
@testable import SqueezeCoordinator

/// What an `OutputWriter` test writes into: a temporary folder with an `out` destination
/// holding a job's workspace, and an I/O pool. `cleanUp` stops the pool and removes the folder.
struct WriterFolder {
    /// The temporary folder; outputs go to `root/out`.
    let root: String
    let workspace: JobWorkspace
    let pool: BlockingIOPool

    /// A fresh folder named `prefix-<uuid>` in the temporary directory.
    init(_ prefix: String) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
        workspace = try JobWorkspace(in: BytePath(root + "/out"))
        pool = BlockingIOPool(threads: 2)
    }

    func cleanUp() {
        pool.shutdown()
        try? FileManager.default.removeItem(atPath: root)
    }
}
