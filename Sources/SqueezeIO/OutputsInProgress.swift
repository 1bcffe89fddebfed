import Glibc
import NIOConcurrencyHelpers

/// The outputs being written, and the job workspaces they are written in, so an interrupt
/// removes them before the process ends, as gzip removes a partial output: a final name holds
/// a complete file or nothing, and no temporary folder is left in the destination.
public final class OutputsInProgress: Sendable {
    private let current = NIOLockedValueBox<(outputs: [ObjectIdentifier: AtomicOutputFile], workspaces: [ObjectIdentifier: JobWorkspace])>(([:], [:]))

    /// None yet.
    public init() {}

    /// An output now being written.
    public func add(_ output: AtomicOutputFile) {
        current.withLockedValue { $0.outputs[ObjectIdentifier(output)] = output }
    }

    /// An output published or discarded.
    public func remove(_ output: AtomicOutputFile) {
        current.withLockedValue { _ = $0.outputs.removeValue(forKey: ObjectIdentifier(output)) }
    }

    /// A workspace now in use: an interrupt removes it with whatever it holds.
    public func add(_ workspace: JobWorkspace) {
        current.withLockedValue { $0.workspaces[ObjectIdentifier(workspace)] = workspace }
    }

    /// A workspace removed by its owner.
    public func remove(_ workspace: JobWorkspace) {
        current.withLockedValue { _ = $0.workspaces.removeValue(forKey: ObjectIdentifier(workspace)) }
    }

    /// Writes `target` as an `AtomicOutputFile` tracked here, its temporary in `folder` (beside
    /// the target when nil): `body` fills it, then it gets `stamp`'s permissions and mtime and
    /// is made durable and renamed into place (over an existing target only with `replace`).
    /// On any failure the temporary is removed.
    public func write<T>(
        _ target: BytePath, in folder: BytePath? = nil, like stamp: FileStamp, replace: Bool, _ body: (AtomicOutputFile) throws -> T
    ) throws -> T {
        let output = try AtomicOutputFile(finalPath: target, in: folder)
        add(output)
        defer { remove(output) }
        do {
            let result = try body(output)
            try output.commit(permissions: stamp.permissions, modifiedSeconds: stamp.modifiedSeconds,
                              modifiedNanoseconds: stamp.modifiedNanoseconds, replace: replace)
            return result
        } catch {
            output.discard()
            throw error
        }
    }

    /// Removes the temporaries of the outputs being written, then the workspaces, and ends the
    /// process as the signal would have (status 128 + signal). Holds the lock to the end, so
    /// nothing is added meanwhile.
    public func abandon(signal number: Int32) -> Never {
        current.withLockedValue { current in
            for output in current.outputs.values { output.discard() }
            for workspace in current.workspaces.values { workspace.remove() }
            _exit(128 + number)
        }
    }
}
