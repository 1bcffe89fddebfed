import Glibc
import NIOConcurrencyHelpers
import SqueezeIO

/// The outputs being written, so an interrupt removes their temporaries before the process
/// ends, as gzip removes a partial output: a final name holds a complete file or nothing.
public final class OutputsInProgress: Sendable {
    private let current = NIOLockedValueBox<[ObjectIdentifier: AtomicOutputFile]>([:])

    /// None yet.
    public init() {}

    /// An output now being written.
    public func add(_ output: AtomicOutputFile) {
        current.withLockedValue { $0[ObjectIdentifier(output)] = output }
    }

    /// An output published or discarded.
    public func remove(_ output: AtomicOutputFile) {
        current.withLockedValue { _ = $0.removeValue(forKey: ObjectIdentifier(output)) }
    }

    /// Writes `target` as an `AtomicOutputFile` tracked here: `body` fills it, then it gets
    /// `info`'s mode and mtime and is made durable and renamed into place (over an existing
    /// target only with `replace`). On any failure the temporary is removed.
    public func write<T>(_ target: BytePath, like info: stat, replace: Bool, _ body: (AtomicOutputFile) throws -> T) throws -> T {
        let output = try AtomicOutputFile(finalPath: target)
        add(output)
        defer { remove(output) }
        do {
            let result = try body(output)
            try output.commit(permissions: UInt32(info.st_mode & 0o7777), modifiedSeconds: Int64(info.st_mtim.tv_sec),
                              modifiedNanoseconds: Int64(info.st_mtim.tv_nsec), replace: replace)
            return result
        } catch {
            output.discard()
            throw error
        }
    }

    /// Removes the temporaries of the outputs being written and ends the process as the signal
    /// would have (status 128 + signal). Holds the lock to the end, so no output is added meanwhile.
    public func abandon(signal number: Int32) -> Never {
        current.withLockedValue { outputs in
            for output in outputs.values { output.discard() }
            _exit(128 + number)
        }
    }
}
