import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// One writer partition: reorders each file's blocks, appends the contiguous ones to the
/// file's temporary (on the I/O pool), and on the last block writes the trailer, fsyncs and
/// renames. State is owned by the single task that runs it, so it needs no lock.
struct OutputWriter {
    private struct OpenOutput {
        var spec: OutputSpec
        var file: AtomicOutputFile?
        var next = 0
        var pending: [Int: ResultBlock] = [:]
        var checksum = MemberChecksum()
        var bytesOut: UInt64 = 0
    }

    /// What one drain did, reported to the coordinator.
    struct Progress: Sendable {
        var key: FileKey
        var rawBytes: UInt64
        var outputBytes: UInt64
        var outputTotal: UInt64
        var finished: Bool
    }

    private var open: [FileKey: OpenOutput] = [:]
    private let pool: BlockingIOPool

    init(pool: BlockingIOPool) {
        self.pool = pool
    }

    /// Applies one command; returns progress to report, or throws a file's write error.
    mutating func handle(_ command: WriterCommand) async -> Result<Progress, WriteFailure>? {
        switch command {
        case .discardFile(let key):
            if let output = open.removeValue(forKey: key)?.file { await discard(output) }
            return nil
        case .discardJob(let job):
            for key in open.keys where key.job == job {
                if let output = open.removeValue(forKey: key)?.file { await discard(output) }
            }
            return nil
        case .block(let spec, let index, let block):
            var state = open[spec.key] ?? OpenOutput(spec: spec)
            state.pending[index] = block
            var chunks: [[UInt8]] = []
            var rawBytes: UInt64 = 0
            while let ready = state.pending.removeValue(forKey: state.next) {
                state.checksum.append(crc: ready.crc, length: ready.rawLength)
                chunks.append(ready.bytes)
                rawBytes += UInt64(ready.rawLength)
                state.next += 1
            }
            guard !chunks.isEmpty else {
                open[spec.key] = state
                return nil
            }
            let finished = state.next == spec.blockCount
            if state.file == nil { chunks.insert(spec.header.encoded(), at: 0) }
            if finished { chunks.append(state.checksum.trailer.encoded()) }
            let written = UInt64(chunks.reduce(0) { $0 + $1.count })
            let existing = state.file
            let toWrite = chunks
            do {
                let file = try await pool.run {
                    let file = try existing ?? AtomicOutputFile(finalPath: spec.outputPath)
                    do {
                        try file.write(toWrite)
                        if finished {
                            try file.commit(
                                permissions: spec.stamp.permissions,
                                modifiedSeconds: spec.stamp.modifiedSeconds,
                                modifiedNanoseconds: spec.stamp.modifiedNanoseconds,
                                replace: spec.replace)
                        }
                    } catch {
                        file.discard()
                        throw error
                    }
                    return file
                }
                state.file = file
                state.bytesOut += written
            } catch {
                open.removeValue(forKey: spec.key)
                let reason = (error as? FileSystemError)?.reason ?? "\(error)"
                return .failure(WriteFailure(key: spec.key, reason: reason))
            }
            if finished {
                open.removeValue(forKey: spec.key)
            } else {
                open[spec.key] = state
            }
            return .success(Progress(key: spec.key, rawBytes: rawBytes, outputBytes: written, outputTotal: state.bytesOut, finished: finished))
        }
    }

    /// Discards every open temporary (shutdown).
    mutating func discardAll() async {
        for output in open.values.compactMap(\.file) { await discard(output) }
        open.removeAll()
    }

    private func discard(_ file: AtomicOutputFile) async {
        _ = try? await pool.run { file.discard() }
    }
}
