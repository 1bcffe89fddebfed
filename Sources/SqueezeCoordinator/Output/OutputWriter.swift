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
        /// The offset table's lengths so far, each span's blocks summed as they are appended.
        var spanLengths: [UInt64] = []
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
                job: key.job.value, path: relativePath, sourceSize: stamp.size, sourceModifiedSeconds: stamp.modifiedSeconds,
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
        case .members(let members):
            let outcomes = await adopt(members)
            if sealed.count >= Self.batchFiles {
                return outcomes + (await flush())
            }
            return outcomes
        case .takeOver(let members):
            let outcomes = await takeOver(members)
            if sealed.count >= Self.batchFiles {
                return outcomes + (await flush())
            }
            return outcomes
        case .placed(let spec, let output, let end, let trailer):
            let outcome = await finishPlaced(output, end: end, trailer: trailer, spec: spec)
            if sealed.count >= Self.batchFiles {
                return [outcome] + (await flush())
            }
            return [outcome]
        case .blocks(let files):
            var outcomes = await append(files.map { file in (file.spec, file.blocks.map { ($0.index, PendingBlock.bytes($0.block)) }) })
            if sealed.count >= Self.batchFiles { outcomes += await flush() }
            return outcomes
        case .piece(let spec, let index, let piece):
            var outcomes = await append([(spec, [(index, .piece(piece))])])
            if sealed.count >= Self.batchFiles { outcomes += await flush() }
            return outcomes
        }
    }

    /// Whole members shared-storage workers wrote: each checked and taken over as its output's
    /// temporary, to be published with the next batch. No byte is copied, and one trip to the
    /// I/O pool serves them all (a bundle of small files is one command).
    private mutating func adopt(_ members: [(spec: OutputSpec, piece: PieceBlock)]) async -> [Result<Progress, WriteFailure>] {
        guard !members.isEmpty else { return [] }
        let stopwatch = Stopwatch()
        defer { stopwatch.record(in: metrics?.writeDuration) }
        let adopted: [Result<AtomicOutputFile, WriteFailure>]
        do {
            adopted = try await pool.run {
                members.map { spec, piece in
                    Result { try AtomicOutputFile(adopting: piece.path, finalPath: spec.outputPath, expectedSize: piece.length) }
                        .mapError { WriteFailure(key: spec.key, reason: ($0 as? FileSystemError)?.reason ?? "\($0)") }
                }
            }
        } catch {
            return members.map { .failure(WriteFailure(key: $0.spec.key, reason: "\(error)")) }
        }
        return zip(members, adopted).map { member, outcome in
            outcome.map { file in
                sealed.append(SealedOutput(member.spec, file: file, bytesOut: member.piece.length))
                return Progress(key: member.spec.key, rawBytes: UInt64(member.piece.rawLength), outputBytes: member.piece.length,
                                outputTotal: member.piece.length, finished: false, sealed: true, blocks: 0..<1)
            }
        }
    }

    /// Members a worker was granted to publish and did not answer for: adopted like any, except
    /// that one whose piece is gone while its output holds exactly that member was renamed by
    /// the worker, and counts as published once the renames on its file system are synced.
    private mutating func takeOver(_ members: [(spec: OutputSpec, piece: PieceBlock)]) async -> [Result<Progress, WriteFailure>] {
        guard !members.isEmpty else { return [] }
        let inPlace: [Bool]
        do {
            inPlace = try await pool.run {
                let found = members.map { member in
                    !Directories.exists(member.piece.path)
                        && OutputFacts.read(member.spec.outputPath)?.holds(
                            length: member.piece.length, crc: member.piece.crc, rawLength: UInt64(member.piece.rawLength)) == true
                }
                if let first = zip(members, found).first(where: { $0.1 })?.0 {
                    try AtomicOutputFile.syncFileSystem(containing: first.spec.outputPath)
                }
                return found
            }
        } catch {
            return members.map { .failure(WriteFailure(key: $0.spec.key, reason: (error as? FileSystemError)?.reason ?? "\(error)")) }
        }
        var outcomes: [Result<Progress, WriteFailure>] = []
        for (member, done) in zip(members, inPlace) where done {
            outcomes.append(.success(Progress(
                key: member.spec.key, rawBytes: UInt64(member.piece.rawLength), outputBytes: member.piece.length,
                outputTotal: member.piece.length, finished: true, sealed: true, blocks: 0..<1)))
        }
        return outcomes + (await adopt(zip(members, inPlace).filter { !$0.1 }.map(\.0)))
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
        let member = PieceBlock(path: output, crc: 0, rawLength: 0, length: length, item: 0, attempt: 0, position: 0)
        return await adopt([(spec, member)])[0]
    }

    /// What appending to one file's output does, planned on the writer's task and carried out
    /// on the I/O pool.
    private struct AppendStep: Sendable {
        var spec: OutputSpec
        var existing: AtomicOutputFile?
        var header: [UInt8]
        var chunks: [PendingBlock]
        var trailer: [UInt8]
        var finished: Bool
        var rawBytes: UInt64
        var firstAppended: Int
        var next: Int
        /// The header's final bytes (the offset table's lengths), written over the first at the
        /// end; nil without a table.
        var finalHeader: [UInt8]?

        var written: UInt64 { UInt64(header.count + trailer.count) + chunks.reduce(0) { $0 + $1.length } }
    }

    /// Takes blocks of several files (in any order within a file) and appends each file's
    /// contiguous run to its temporary, all in one trip to the I/O pool; the last block writes
    /// the trailer and seals the file. Returns one outcome per file that wrote something.
    private mutating func append(_ files: [(spec: OutputSpec, blocks: [(Int, PendingBlock)])]) async -> [Result<Progress, WriteFailure>] {
        var steps: [AppendStep] = []
        var stepOf: [FileKey: Int] = [:]
        for (spec, blocks) in files {
            var state = open[spec.key] ?? OpenOutput(spec: spec)
            for (index, block) in blocks { state.pending[index] = block }
            var step = stepOf[spec.key].map { steps[$0] } ?? AppendStep(
                spec: spec, existing: state.file, header: state.file == nil ? spec.header.encoded() : [], chunks: [],
                trailer: [], finished: false, rawBytes: 0, firstAppended: state.next, next: state.next)
            while let ready = state.pending.removeValue(forKey: state.next) {
                state.checksum.append(crc: ready.crc, length: ready.rawLength)
                if let perSpan = state.spec.spanBlocks {
                    let span = state.next / perSpan
                    if span >= state.spanLengths.count { state.spanLengths.append(0) }
                    state.spanLengths[span] += ready.length
                }
                step.chunks.append(ready)
                step.rawBytes += UInt64(ready.rawLength)
                state.next += 1
            }
            step.next = state.next
            step.finished = state.next == spec.blockCount
            if step.finished {
                step.trailer = state.checksum.trailer.encoded()
                step.finalHeader = Self.finalHeader(state)
            }
            open[spec.key] = state
            guard !step.chunks.isEmpty else { continue }
            if let index = stepOf[spec.key] {
                steps[index] = step
            } else {
                stepOf[spec.key] = steps.count
                steps.append(step)
            }
        }
        guard !steps.isEmpty else { return [] }
        let delay = delayPerBlock
        let stopwatch = Stopwatch()
        defer { stopwatch.record(in: metrics?.writeDuration) }
        let toWrite = steps
        let results: [Result<AtomicOutputFile, WriteFailure>]
        do {
            results = try await pool.run { toWrite.map { step in Self.write(step, delayPerBlock: delay) } }
        } catch {
            results = steps.map { .failure(WriteFailure(key: $0.spec.key, reason: "\(error)")) }
        }
        return zip(steps, results).map { step, result in
            let key = step.spec.key
            switch result {
            case .failure(let failure):
                open.removeValue(forKey: key)
                return .failure(failure)
            case .success(let file):
                // Planned above and owned by this task alone: it is still open.
                var state = open.removeValue(forKey: key) ?? OpenOutput(spec: step.spec)
                state.file = file
                state.bytesOut += step.written
                if step.finished {
                    sealed.append(SealedOutput(step.spec, file: file, bytesOut: state.bytesOut))
                } else {
                    open[key] = state
                }
                return .success(Progress(key: key, rawBytes: step.rawBytes, outputBytes: step.written, outputTotal: state.bytesOut,
                                         finished: false, sealed: step.finished, blocks: step.firstAppended..<step.next))
            }
        }
    }

    /// The header a finished output ends with: its offset table's lengths from the blocks as
    /// appended (every span's but the last's); nil for a member without a table.
    private static func finalHeader(_ state: OpenOutput) -> [UInt8]? {
        guard var table = state.spec.header.offsetTable else { return nil }
        var header = state.spec.header
        // A span holds at most 1 GiB and its blocks passed the length checks (deflate's worst
        // case), so its length fits in 32 bits; clamped all the same.
        table.spanLengths = (0..<table.spanLengths.count).map { UInt32(clamping: $0 < state.spanLengths.count ? state.spanLengths[$0] : 0) }
        header.offsetTable = table
        return header.encoded()
    }

    /// Carries out one append: creates the temporary if it is the file's first, writes the
    /// header, the blocks and the trailer, and after the last block the header's final bytes
    /// (the offset table) over the first, and seals it. Blocking.
    private static func write(_ step: AppendStep, delayPerBlock delay: UInt32) -> Result<AtomicOutputFile, WriteFailure> {
        if delay > 0 { usleep(delay * UInt32(clamping: step.chunks.count)) }
        let spec = step.spec
        do {
            let file = try step.existing ?? AtomicOutputFile(finalPath: spec.outputPath, in: spec.workspace)
            do {
                if step.chunks.count == 1, case .bytes(let block) = step.chunks[0] {
                    // A one-block file from a message: header, block and trailer in one call.
                    try step.header.withUnsafeBytes { header in
                        try block.bytes.withUnsafeBytes { bytes in
                            try step.trailer.withUnsafeBytes { trailer in try file.write(header, bytes, trailer) }
                        }
                    }
                } else {
                    try file.write([step.header])
                    for chunk in step.chunks {
                        switch chunk {
                        // Straight from the received frame: libzmq's message is the only copy.
                        case .bytes(let block): try block.bytes.withUnsafeBytes { try file.write($0) }
                        case .piece(let piece): try file.append(piece: piece.path, from: piece.placed ? piece.offset : nil, length: piece.length)
                        }
                    }
                    try file.write([step.trailer])
                }
                if let finalHeader = step.finalHeader { try file.write(finalHeader, at: 0) }
                if step.finished {
                    try file.seal(
                        permissions: spec.stamp.permissions,
                        modifiedSeconds: spec.stamp.modifiedSeconds,
                        modifiedNanoseconds: spec.stamp.modifiedNanoseconds)
                }
            } catch {
                file.discard()
                throw error
            }
            return .success(file)
        } catch {
            return .failure(WriteFailure(key: spec.key, reason: (error as? FileSystemError)?.reason ?? "\(error)"))
        }
    }

    /// One `syncfs` per file system holding sealed files, then a rename each.
    private mutating func flush() async -> [Result<Progress, WriteFailure>] {
        guard !sealed.isEmpty else { return [] }
        let batch = sealed
        sealed.removeAll()
        let journal = journal
        let stopwatch = Stopwatch()
        defer { stopwatch.record(in: metrics?.fsyncDuration) }
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
