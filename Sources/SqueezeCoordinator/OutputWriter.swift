import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol

/// One writer partition: reorders each file's blocks, appends the contiguous ones to the
/// file's temporary (on the I/O pool), and on the last block writes the trailer and seals it.
/// Sealed files are made durable in batches, with one `syncfs` per file system instead of one
/// fsync per file, and only then renamed into place and reported done. State is owned by the
/// single task that runs it, so it needs no lock.
struct OutputWriter {
    private struct OpenOutput {
        var spec: OutputSpec
        var file: AtomicOutputFile?
        var next = 0
        var pending: [Int: PendingBlock] = [:]
        var checksum = MemberChecksum()
        var bytesOut: UInt64 = 0
    }

    private struct SealedOutput {
        var key: FileKey
        var file: AtomicOutputFile
        var replace: Bool
        var bytesOut: UInt64
        /// What the journal names it by and what its source was.
        var relativePath: [UInt8]
        var stamp: FileStamp

        init(_ spec: OutputSpec, file: AtomicOutputFile, bytesOut: UInt64) {
            key = spec.key
            self.file = file
            replace = spec.replace
            self.bytesOut = bytesOut
            relativePath = spec.relativePath
            stamp = spec.stamp
        }

        /// Its journal entry.
        func record(_ facts: SealedFacts) -> PublishedFile {
            PublishedFile(
                job: key.job, path: relativePath, sourceSize: stamp.size, sourceModifiedSeconds: stamp.modifiedSeconds,
                sourceModifiedNanoseconds: stamp.modifiedNanoseconds, sourceDevice: stamp.device, sourceInode: stamp.inode,
                outputSize: facts.size, outputInode: facts.inode, crc: facts.crc)
        }
    }

    /// What one command did, reported to the coordinator.
    struct Progress: Sendable {
        var key: FileKey
        var rawBytes: UInt64
        var outputBytes: UInt64
        var outputTotal: UInt64
        /// The output is durable and in place.
        var finished: Bool
        /// This step sealed the output: it waits only for the next flush to be published.
        var sealed = false
        /// Indices of the blocks this step appended to the output (empty when publishing).
        var blocks: Range<Int> = 0..<0
    }

    /// Sealed files that trigger a flush without waiting for the ticker. Each keeps its
    /// descriptor until published, so this also bounds open files (per writer partition).
    static let batchFiles = 64

    private var open: [FileKey: OpenOutput] = [:]
    private var sealed: [SealedOutput] = []
    private let pool: BlockingIOPool
    /// Where published outputs are recorded before they are renamed into place; nil without one.
    private let journal: Journal?
    /// Microseconds each appended block waits first (the slow-disk test hook); 0 in use.
    private let delayPerBlock: UInt32

    /// Where write and fsync latencies go.
    private let metrics: CoordinatorMetrics?

    init(pool: BlockingIOPool, journal: Journal? = nil, delayPerBlock: Duration? = nil, metrics: CoordinatorMetrics? = nil) {
        self.pool = pool
        self.metrics = metrics
        self.journal = journal
        let micros = delayPerBlock.map { min(max($0.components.seconds, 0), 3600) * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000 } ?? 0
        self.delayPerBlock = UInt32(clamping: max(0, micros))
    }

    /// Applies one command; returns the progress and failures to report.
    mutating func handle(_ command: WriterCommand) async -> [Result<Progress, WriteFailure>] {
        switch command {
        case .discardFile(let key):
            if let output = open.removeValue(forKey: key)?.file { await discard(output) }
            await discardSealed { $0 == key }
            return []
        case .discardJob(let job):
            for key in open.keys where key.job == job {
                if let output = open.removeValue(forKey: key)?.file { await discard(output) }
            }
            await discardSealed { $0.job == job }
            return []
        case .flush:
            return await flush()
        case .removeWorkspace(_, let workspace):
            _ = try? await pool.run { workspace.remove() }
            return []
        case .member(let spec, let piece):
            let outcome = await adopt(piece, spec: spec)
            if sealed.count >= Self.batchFiles {
                return [outcome] + (await flush())
            }
            return [outcome]
        case .placed(let spec, let output, let end, let trailer):
            let outcome = await finishPlaced(output, end: end, trailer: trailer, spec: spec)
            if sealed.count >= Self.batchFiles {
                return [outcome] + (await flush())
            }
            return [outcome]
        case .blocks, .piece:
            let (spec, blocks): (OutputSpec, [(Int, PendingBlock)]) = switch command {
            case .blocks(let spec, let blocks): (spec, blocks.map { ($0.index, .bytes($0.block)) })
            case .piece(let spec, let index, let piece): (spec, [(index, .piece(piece))])
            default: preconditionFailure("only blocks and pieces reach here")
            }
            let outcome = await append(blocks, spec: spec)
            if sealed.count >= Self.batchFiles {
                return [outcome].compactMap { $0 } + (await flush())
            }
            return [outcome].compactMap { $0 }
        }
    }

    /// A whole member a shared-storage worker wrote: checked and taken over as the output's
    /// temporary, to be published with the next batch. No byte is copied.
    private mutating func adopt(_ piece: PieceBlock, spec: OutputSpec) async -> Result<Progress, WriteFailure> {
        let began = ContinuousClock.now
        defer { if let metrics { CoordinatorMetrics.record(.now - began, in: metrics.writeDuration) } }
        do {
            let file = try await pool.run {
                try AtomicOutputFile(adopting: piece.path, finalPath: spec.outputPath, expectedSize: piece.length)
            }
            sealed.append(SealedOutput(spec, file: file, bytesOut: piece.length))
        } catch {
            return .failure(WriteFailure(key: spec.key, reason: (error as? FileSystemError)?.reason ?? "\(error)"))
        }
        return .success(Progress(key: spec.key, rawBytes: UInt64(piece.rawLength), outputBytes: piece.length,
                                 outputTotal: piece.length, finished: false, sealed: true, blocks: 0..<1))
    }

    /// An output whose blocks workers wrote in place: its header and trailer written, it is
    /// taken over as the temporary like a member. No block is copied.
    private mutating func finishPlaced(_ output: BytePath, end: UInt64, trailer: [UInt8], spec: OutputSpec) async -> Result<Progress, WriteFailure> {
        let header = spec.header.encoded()
        do {
            try await pool.run {
                try PieceFile.finishPlaced(output, header: header, end: end, trailer: trailer, member: spec.stamp)
            }
        } catch {
            return .failure(WriteFailure(key: spec.key, reason: (error as? FileSystemError)?.reason ?? "\(error)"))
        }
        let length = end + UInt64(trailer.count)
        return await adopt(PieceBlock(path: output, crc: 0, rawLength: 0, length: length, item: 0, attempt: 0, position: 0), spec: spec)
    }

    private mutating func append(_ blocks: [(Int, PendingBlock)], spec: OutputSpec) async -> Result<Progress, WriteFailure>? {
        var state = open[spec.key] ?? OpenOutput(spec: spec)
        for (index, block) in blocks { state.pending[index] = block }
        let firstAppended = state.next
        var chunks: [PendingBlock] = []
        var rawBytes: UInt64 = 0
        while let ready = state.pending.removeValue(forKey: state.next) {
            state.checksum.append(crc: ready.crc, length: ready.rawLength)
            chunks.append(ready)
            rawBytes += UInt64(ready.rawLength)
            state.next += 1
        }
        guard !chunks.isEmpty else {
            open[spec.key] = state
            return nil
        }
        let finished = state.next == spec.blockCount
        let header = state.file == nil ? spec.header.encoded() : []
        let trailer = finished ? state.checksum.trailer.encoded() : []
        let written = UInt64(header.count + trailer.count) + chunks.reduce(0) { $0 + $1.length }
        let existing = state.file
        let toWrite = chunks
        let delay = delayPerBlock
        let began = ContinuousClock.now
        defer { if let metrics { CoordinatorMetrics.record(.now - began, in: metrics.writeDuration) } }
        do {
            let file = try await pool.run {
                if delay > 0 { usleep(delay * UInt32(clamping: toWrite.count)) }
                let file = try existing ?? AtomicOutputFile(finalPath: spec.outputPath, in: spec.workspace)
                do {
                    try file.write([header])
                    for chunk in toWrite {
                        switch chunk {
                        // Straight from the received frame: libzmq's message is the only copy.
                        case .bytes(let block): try block.bytes.withUnsafeBytes { try file.write($0) }
                        case .piece(let piece): try file.append(piece: piece.path, from: piece.placed ? piece.offset : nil, length: piece.length)
                        }
                    }
                    try file.write([trailer])
                    if finished {
                        try file.seal(
                            permissions: spec.stamp.permissions,
                            modifiedSeconds: spec.stamp.modifiedSeconds,
                            modifiedNanoseconds: spec.stamp.modifiedNanoseconds)
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
        if finished, let file = state.file {
            open.removeValue(forKey: spec.key)
            sealed.append(SealedOutput(spec, file: file, bytesOut: state.bytesOut))
        } else {
            open[spec.key] = state
        }
        return .success(Progress(key: spec.key, rawBytes: rawBytes, outputBytes: written, outputTotal: state.bytesOut,
                                 finished: false, sealed: finished, blocks: firstAppended..<state.next))
    }

    /// One `syncfs` per file system holding sealed files, then a rename each.
    private mutating func flush() async -> [Result<Progress, WriteFailure>] {
        guard !sealed.isEmpty else { return [] }
        let batch = sealed
        sealed.removeAll()
        let journal = journal
        let began = ContinuousClock.now
        defer { if let metrics { CoordinatorMetrics.record(.now - began, in: metrics.fsyncDuration) } }
        let outcomes = try? await pool.run { () -> [Result<Progress, WriteFailure>] in
            var syncErrors: [UInt64: String] = [:]
            for device in Set(batch.map(\.file.device)) {
                guard let first = batch.first(where: { $0.file.device == device }) else { continue }
                do {
                    try AtomicOutputFile.syncFileSystem(containing: first.file.finalPath)
                } catch {
                    syncErrors[device] = (error as? FileSystemError)?.reason ?? "\(error)"
                }
            }
            var synced: [SealedOutput] = []
            var records: [PublishedFile] = []
            var published: [SealedOutput] = []
            var outcomes: [Result<Progress, WriteFailure>] = []
            // Every fsync before any rename (see AtomicOutputFile).
            for output in batch {
                do {
                    if let reason = syncErrors[output.file.device] {
                        output.file.discard()
                        outcomes.append(.failure(WriteFailure(key: output.key, reason: reason)))
                        continue
                    }
                    let facts = journal == nil ? nil : try output.file.sealedFacts()
                    try output.file.sync()
                    synced.append(output)
                    if let facts { records.append(output.record(facts)) }
                } catch {
                    output.file.discard()
                    outcomes.append(.failure(WriteFailure(key: output.key, reason: (error as? FileSystemError)?.reason ?? "\(error)")))
                }
            }
            // The journal learns of a batch before it is renamed into place: after a crash, an
            // output it lists is either there, with its inode, or missing and redone; an output
            // it does not list was never published by this job.
            if let journal, !records.isEmpty {
                do {
                    try journal.recordPublished(records)
                } catch {
                    for output in synced {
                        output.file.discard()
                        outcomes.append(.failure(WriteFailure(key: output.key, reason: "\(error)", journal: true)))
                    }
                    synced.removeAll()
                }
            }
            for output in synced {
                do {
                    try output.file.publish(replace: output.replace)
                    published.append(output)
                } catch {
                    outcomes.append(.failure(WriteFailure(key: output.key, reason: (error as? FileSystemError)?.reason ?? "\(error)")))
                }
            }
            // The renames themselves must be on disk before the files are reported done.
            var renameErrors: [UInt64: String] = [:]
            for device in Set(published.map(\.file.device)) {
                guard let first = published.first(where: { $0.file.device == device }) else { continue }
                do {
                    try AtomicOutputFile.syncFileSystem(containing: first.file.finalPath)
                } catch {
                    renameErrors[device] = (error as? FileSystemError)?.reason ?? "\(error)"
                }
            }
            for output in published {
                if let reason = renameErrors[output.file.device] {
                    outcomes.append(.failure(WriteFailure(key: output.key, reason: "output renamed but not synced: \(reason)")))
                } else {
                    outcomes.append(.success(Progress(key: output.key, rawBytes: 0, outputBytes: 0, outputTotal: output.bytesOut, finished: true)))
                }
            }
            return outcomes
        }
        guard let outcomes else {
            // The pool stopped (shutdown): nothing was published.
            for output in batch { output.file.discard() }
            return batch.map { .failure(WriteFailure(key: $0.key, reason: "shutting down")) }
        }
        return outcomes
    }

    /// Discards every open or sealed temporary (shutdown).
    mutating func discardAll() async {
        for output in open.values.compactMap(\.file) { await discard(output) }
        open.removeAll()
        await discardSealed { _ in true }
    }

    private mutating func discardSealed(where matches: (FileKey) -> Bool) async {
        let dropped = sealed.filter { matches($0.key) }
        guard !dropped.isEmpty else { return }
        sealed.removeAll { matches($0.key) }
        for output in dropped { await discard(output.file) }
    }

    private func discard(_ file: AtomicOutputFile) async {
        _ = try? await pool.run { file.discard() }
    }
}
