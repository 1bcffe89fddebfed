import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// A job of one small regular file, which `squeeze compress` runs on threads of its own
/// without the embedded cluster: no coordinator, sockets, workers or journal.
///
/// The cluster's fixed cost (its threads and sockets, the workers' registration, a piece file
/// per block and the join, the journal) is most of the time a file of a few megabytes takes,
/// and buys such a job nothing: a file is the journal's unit, so a killed run of one file is
/// redone whole either way, and it ends before a progress line would show. What the user sees
/// is the cluster path's, to the byte: the member (`ParallelGzipWriter` makes `GzipMember`'s
/// bytes, with the same header and offset table), the output's mode and mtime, the checks
/// before it is written, the events and so the exit status.
public struct SmallFileJob: Sendable {
    /// The largest file run this way. At two cores a file this size takes about 150 ms at the
    /// default level, which the cluster's fixed cost (some 20 ms) would still lengthen by a tenth;
    /// a bigger one gets the cluster's progress, trace and journal.
    public static let maximumBytes: UInt64 = 32 << 20

    let request: JobRequest
    let setting: EngineSetting
    let blockSize: Int
    /// The file, canonical (a symlink resolved, as the cluster names its output).
    let source: BytePath
    let stamp: FileStamp

    /// Whether a request may run as a small file job, given what its source is (nil when it
    /// cannot be read): not an archive or a traced job, settings the cluster would accept, one
    /// regular file of at most `maximumBytes`. Anything else goes to the cluster, which also
    /// reports whatever is wrong with it.
    public static func admits(_ request: JobRequest, defaultBlockSize: Int, source: stat?) -> Bool {
        guard !request.isArchive, request.trace != true, let source, source.st_mode & S_IFMT == S_IFREG,
              source.st_size >= 0, UInt64(source.st_size) <= maximumBytes,
              (4096...ProtocolLimits.maxBlockSize).contains(request.blockSize ?? defaultBlockSize),
              (try? JobRequestRules.checkFields(of: request)) != nil, (try? JobRequestRules.setting(for: request)) != nil
        else { return false }
        return true
    }

    /// `request` as a small file job, or nil when `admits` says it is not one. Blocking: a
    /// `stat` and a `realpath`.
    public static func plan(_ request: JobRequest, defaultBlockSize: Int) -> SmallFileJob? {
        let path = BytePath(request.source)
        guard admits(request, defaultBlockSize: defaultBlockSize, source: try? Directories.status(path)),
              let source = try? Directories.canonical(path), let info = try? Directories.status(source),
              let setting = try? JobRequestRules.setting(for: request)
        else { return nil }
        return SmallFileJob(request: request, setting: setting, blockSize: request.blockSize ?? defaultBlockSize, source: source, stamp: FileStamp(info))
    }

    /// Runs the job on the calling thread, which reads the file, and up to `threads` threads
    /// that compress its blocks. `emit` gets the events a coordinator sends, in its order, the
    /// summary last; `outputs` holds the workspace and the temporary while they exist, for an
    /// interrupt to remove. A request refused before it starts is the failure, as the
    /// coordinator refuses it.
    public func run(threads: Int, outputs: OutputsInProgress, emit: (JobEvent) -> Void) -> Result<JobSummary?, any Error> {
        let started = ContinuousClock.now
        let destination: (path: BytePath, existed: Bool)
        let workspace: JobWorkspace
        do {
            destination = try JobPreparer.prepareDestination(
                BytePath(request.destinationPath), display: request.destination, source: source, sourceIsDirectory: false, base: nil)
            JobWorkspace.removeStale(under: destination.path)
            do {
                workspace = try JobWorkspace(in: destination.path)
            } catch {
                throw CoordinatorError(
                    "\(destination.path.display): cannot create the job's workspace (\((error as? FileSystemError)?.reason ?? "\(error)"))")
            }
        } catch {
            return .failure(error)
        }
        outputs.add(workspace)
        defer {
            workspace.remove()
            outputs.remove(workspace)
        }
        let name = BytePath(bytes: source.lastComponent)
        let outputPath = BytePath(bytes: destination.path.appending(name).bytes + Array(".gz".utf8))
        var failed: [EntryNote] = []
        var bytesOut: UInt64 = 0
        // As the cluster's planning: an output already there is refused unless the job made
        // the folder it is in (so it cannot be anyone else's) or `force` replaces it.
        let refused = !request.force && destination.existed && Directories.exists(outputPath)
        emit(.started(JobStart(
            jobID: 1, source: request.source, destination: destination.path.display, files: refused ? 0 : 1,
            bytes: refused ? 0 : stamp.size, engine: setting.description)))
        if refused {
            failed.append(EntryNote(
                path: name.display, reason: "output \(outputPath.display) already exists (use --force to replace it)", outputExists: true))
        } else {
            do {
                bytesOut = try compress(into: outputPath, workspace: workspace.path, threads: threads, outputs: outputs)
            } catch {
                failed.append(EntryNote(path: name.display, reason: (error as? FileSystemError)?.reason ?? "\(error)"))
            }
        }
        for note in failed { emit(.fileFailed(note)) }
        let done = failed.isEmpty
        if done && request.fileEvents == true {
            emit(.fileDone(FileDone(path: name.display, bytesIn: stamp.size, bytesOut: bytesOut)))
        }
        let seconds = (ContinuousClock.now - started).seconds
        let bytesIn = done ? stamp.size : 0
        emit(.progress(ProgressSnapshot(
            jobID: 1, filesDone: done ? 1 : 0, files: refused ? 0 : 1, bytesDone: bytesIn, bytes: refused ? 0 : stamp.size,
            bytesOut: bytesOut, seconds: seconds, workers: threads, active: [])))
        var summary = JobSummary(
            jobID: 1, state: .completed, message: nil, filesCompressed: done ? 1 : 0, bytesIn: bytesIn, bytesOut: bytesOut,
            seconds: seconds, skipped: [], failed: failed)
        summary.bytesRelayed = 0
        summary.filesJoinedByCoordinator = 0
        emit(.finished(summary))
        return .success(summary)
    }

    /// Compresses the file into `outputPath` through a temporary in `workspace`; the member's
    /// length. The source must be as it was planned when it has been read, as a worker checks it.
    private func compress(into outputPath: BytePath, workspace: BytePath, threads: Int, outputs: OutputsInProgress) throws -> UInt64 {
        let blocks = BlockLayout(fileSize: stamp.size, blockSize: blockSize).count
        let deflate = try DeflateThreads(setting: setting, count: min(max(1, threads), max(1, blocks)))
        defer { deflate.shutdown() }
        let header = GzipHeader(
            fileName: source.lastComponent, modificationTime: UInt32(clamping: stamp.modifiedSeconds), level: request.level)
        return try outputs.write(outputPath, in: workspace, like: stamp, replace: request.force) { output in
            let writer = try ParallelGzipWriter(threads: deflate, blockSize: blockSize, header: header, plannedSize: stamp.size) {
                try output.write($0)
            }
            _ = try ChunkReader.read(source, chunkSize: blockSize) { try writer.write($0) }
            let finalHeader = try writer.finish().finalHeader
            if let now = try Directories.status(source), let change = stamp.change(to: FileStamp(now)) {
                throw CoordinatorError(change)
            }
            if let finalHeader { try output.write(finalHeader, at: 0) }
            return writer.bytesOut
        }
    }
}
