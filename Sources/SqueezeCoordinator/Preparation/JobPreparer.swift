import Glibc
import SqueezeArchive
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol

/// Validates a request, makes its destination and workspace, and reads its source batch by
/// batch. Blocking (stat, realpath, directory walks, mkdir): runs on the I/O pool, never on
/// the actor.
enum JobPreparer {
    /// `sliced` scans a folder in slices (`ScanSlice`) instead of walking it; the first slice,
    /// of the root, is read here.
    static func prepare(
        _ request: JobRequest, blockSize: Int, batchFiles: Int, root: String?, earlier: EarlierOutputs? = nil, sliced: Bool = false
    ) throws -> PreparedJob {
        guard (0...9).contains(request.level) else { throw CoordinatorError("level \(request.level): must be 0-9") }
        let base = try root.map { try Directories.canonical(BytePath($0)) }
        let sourceArgument = resolve(request.source, against: base)
        guard let info = try? Directories.status(sourceArgument) else {
            throw CoordinatorError("\(request.source): no such file or directory")
        }
        let source = try Directories.canonical(sourceArgument)
        if let base, !isWithin(source, base) {
            throw CoordinatorError("\(request.source): outside the coordinator's root \(base.display)")
        }
        let isDirectory = info.st_mode & S_IFMT == S_IFDIR
        guard isDirectory || info.st_mode & S_IFMT == S_IFREG else {
            throw CoordinatorError("\(request.source): not a regular file or directory")
        }
        if request.isArchive {
            guard isDirectory else { throw CoordinatorError("\(request.source): --tar archives a folder; this is a file (gzip it with `squeeze -k`)") }
            return try prepareArchive(request, source: source, blockSize: blockSize, batchFiles: batchFiles, base: base)
        }
        let destinationArgument = resolve(request.destinationPath, against: base)
        let (destination, destinationExisted) = try prepareDestination(
            destinationArgument, display: request.destination, source: source, sourceIsDirectory: isDirectory, base: base)

        let sourceRoot = isDirectory ? source : source.parent
        var walker: DirectoryWalker?
        var scan = ScanResult()
        let exclude = isDirectory && isWithin(destination, source) ? relative(destination, to: source) : nil
        let slices = sliced && isDirectory && earlier == nil
        if isDirectory && !slices {
            do {
                walker = try DirectoryWalker(root: source, exclude: exclude)
            } catch {
                throw CoordinatorError("\(request.source): \((error as? FileSystemError)?.reason ?? "\(error)")")
            }
        } else {
            scan.files = [ScannedFile(relativePath: BytePath(bytes: source.lastComponent), stamp: FileStamp(info))]
        }
        JobWorkspace.removeStale(under: destination)
        let workspace: JobWorkspace
        do {
            workspace = try JobWorkspace(in: destination)
        } catch {
            throw CoordinatorError("\(destination.display): cannot create the job's workspace (\((error as? FileSystemError)?.reason ?? "\(error)"))")
        }
        var job = PreparedJob(
            sourceDisplay: request.source, sourceRoot: sourceRoot, destination: destination, walker: walker,
            firstBatch: PreparedBatch(), workspace: workspace)
        job.walkExclude = exclude
        job.singleFile = isDirectory ? nil : BytePath(bytes: source.lastComponent)
        let context = BatchContext(
            sourceRoot: sourceRoot, destination: destination, force: request.force, blockSize: blockSize, batchFiles: batchFiles, earlier: earlier)
        // The first batch is read before the job is accepted, so a job of a few thousand files
        // starts with its totals known; the rest of a larger tree is read as the job runs.
        // A destination the job made holds no output yet: its own files need no check.
        let top = OutputFolder(path: destination, fresh: !destinationExisted)
        job.rootDevice = UInt64(info.st_dev)
        if slices {
            job.sliced = true
            let first = ScanSlice(directory: BytePath(bytes: []), after: nil)
            // The root alone, and only its first entries: its folders and the rest of it go to
            // the workers that list them (and so for the folders listed to find a file).
            var startContext = context
            startContext.batchFiles = min(context.batchFiles, rootSliceEntries)
            job.firstBatch = try nextSlice(first, exclude: exclude, context: startContext, lastCreated: top, throwing: true, deep: false)
            job.firstBatch.fromSlice = false
            listUntilAFile(&job.firstBatch, exclude: exclude, context: startContext)
            return job
        }
        job.firstBatch = walker.map { nextBatch(of: $0, context: context, firstIndex: 0, lastCreated: top) }
            ?? plan(scan, finished: true, context: context, firstIndex: 0, lastCreated: top)
        return job
    }

    /// A `--tar` job: the whole tree walked and laid out as one tar stream, planned as one
    /// file whose output is the archive. The walk is done before the job starts: the stream's
    /// length, and so its blocks, depend on every entry.
    private static func prepareArchive(_ request: JobRequest, source: BytePath, blockSize: Int, batchFiles: Int, base: BytePath?) throws -> PreparedJob {
        let shown = request.destinationPath
        let requested = resolve(shown, against: base)
        if let base { try refuseOutside(requested, base: base, shown: shown) }
        guard !requested.lastComponent.isEmpty, requested.lastComponent != Array("..".utf8), requested.lastComponent != Array(".".utf8) else {
            throw CoordinatorError("\(shown): not a file name for the archive")
        }
        let folder: BytePath
        do {
            folder = try Directories.canonical(requested.parent)
        } catch {
            throw CoordinatorError("\(shown): cannot create the archive (\((error as? FileSystemError)?.reason ?? "\(error)"))")
        }
        if let base, !isWithin(folder, base) { throw CoordinatorError("\(shown): outside the coordinator's root \(base.display)") }
        if isWithin(folder, source) { throw CoordinatorError("\(shown): the archive would be inside the folder it archives, \(source.display)") }
        let path = folder.appending(BytePath(bytes: requested.lastComponent))
        if let existing = try? Directories.status(path) {
            if existing.st_mode & S_IFMT == S_IFDIR { throw CoordinatorError("\(shown): exists and is a directory") }
            if !request.force { throw CoordinatorError("\(shown): already exists (use --force to replace it)") }
        }
        let walker: DirectoryWalker
        do {
            walker = try DirectoryWalker(root: source, everyEntry: true)
        } catch {
            throw CoordinatorError("\(request.source): \((error as? FileSystemError)?.reason ?? "\(error)")")
        }
        var builder = TarLayoutBuilder(sourceRoot: source, top: source.lastComponent)
        var batch = PreparedBatch()
        while !walker.isFinished {
            let scan = walker.next(maxFiles: max(1, batchFiles))
            batch.failed += builder.add(scan.entries).map { EntryNote(path: $0.relativePath.display, reason: $0.reason) }
            batch.skipped += scan.skipped.map { EntryNote(path: $0.relativePath.display, reason: $0.reason) }
            batch.failed += scan.failures.map { EntryNote(path: $0.relativePath.display, reason: $0.reason) }
        }
        let layout = builder.finish()
        JobWorkspace.removeStale(under: folder)
        let workspace: JobWorkspace
        do {
            workspace = try JobWorkspace(in: folder)
        } catch {
            throw CoordinatorError("\(folder.display): cannot create the job's workspace (\((error as? FileSystemError)?.reason ?? "\(error)"))")
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let stamp = FileStamp(
            size: layout.length, modifiedSeconds: Int64(now.tv_sec), modifiedNanoseconds: Int64(now.tv_nsec), device: 0, inode: 0,
            permissions: FileCreationMask.newFilePermissions)
        batch.files = [PlannedFile(
            index: 0, relativePath: BytePath(bytes: path.lastComponent), stamp: stamp,
            layout: BlockLayout(fileSize: layout.length, blockSize: blockSize))]
        batch.finished = true
        return PreparedJob(
            sourceDisplay: request.source, sourceRoot: source, destination: folder, walker: nil, firstBatch: batch,
            workspace: workspace, archive: ArchivePlan(layout: layout, path: path))
    }

    /// What planning a batch of files needs to know of its job.
    struct BatchContext: Sendable {
        var sourceRoot: BytePath
        var destination: BytePath
        var force: Bool
        var blockSize: Int
        /// Files read and planned at once (`CoordinatorConfiguration.scanBatchFiles`).
        var batchFiles: Int
        /// Where a resumed job looks up its earlier outputs; nil for a new job.
        var earlier: EarlierOutputs? = nil
    }

    /// Reads the walk's next batch and plans it. Blocking: on the I/O pool.
    static func nextBatch(of walker: DirectoryWalker, context: BatchContext, firstIndex: Int, lastCreated: OutputFolder?) -> PreparedBatch {
        let scan = walker.next(maxFiles: max(1, context.batchFiles))
        return plan(scan, finished: walker.isFinished, context: context, firstIndex: firstIndex, lastCreated: lastCreated)
    }

    /// Reads `slice`, its subdirectories depth first and its further folders, as a worker would
    /// (`DirectorySlice.walk`), up to `batchFiles` entries of a kind, and plans their files
    /// (numbered from 0: the core numbers them as they join the job); the folders it did not
    /// read and the rest of any it ended in come back as slices; not `deep`, it reads the
    /// slice's directory only. `exclude` is relative to the root. A directory that cannot be
    /// read fails as an entry, or, `throwing` (the root), throws. Blocking: on the I/O pool.
    static func nextSlice(
        _ slice: ScanSlice, exclude: BytePath?, context: BatchContext, lastCreated: OutputFolder?, throwing: Bool = false, deep: Bool = true
    ) throws -> PreparedBatch {
        let sections: [DirectorySlice]
        let limits = DirectorySlice.Limits(smallFileBytes: UInt64(context.blockSize), maxEntries: max(1, context.batchFiles), maxSmallBytes: .max)
        do {
            if let gap = slice.gap {
                // A range a worker's listing claimed: only what it left out.
                sections = [try DirectorySlice.read(
                    root: context.sourceRoot, directory: slice.directory, after: slice.after,
                    exclude: DirectorySlice.excluded(exclude, in: slice.directory), limits: limits, through: gap.through, known: gap.knownNames())]
            } else {
                sections = try DirectorySlice.walk(
                    root: context.sourceRoot, directory: slice.directory, after: slice.after, then: slice.more, exclude: exclude,
                    limits: limits, maxDirectories: deep ? ProtocolLimits.maxScanSections : 1)
            }
        } catch {
            let reason = switch error {
            case .unreadable(let reason): reason
            case .otherFileSystem: "another file system"
            }
            if throwing { throw CoordinatorError("\(context.sourceRoot.display): \(reason)") }
            var batch = PreparedBatch()
            batch.fromSlice = true
            batch.failed = [EntryNote(path: slice.directory.display, reason: reason)]
            batch.slices = slice.more.map { ScanSlice(directory: $0, after: nil) }
            return batch
        }
        var scan = ScanResult()
        var slices: [ScanSlice] = []
        let read = Set(sections.dropFirst().map(\.directory))
        for section in sections {
            scan.files += section.smallFiles + section.largeFiles
            scan.skipped += section.skipped
            scan.failures += section.failures
            slices += section.subdirectories.filter { !read.contains($0) }.map { ScanSlice(directory: $0, after: nil) }
            if let after = section.resumeAfter { slices.append(ScanSlice(directory: section.directory, after: after, gap: slice.gap)) }
        }
        slices += slice.more.filter { !read.contains($0) }.map { ScanSlice(directory: $0, after: nil) }
        var batch = plan(scan, finished: false, context: context, firstIndex: 0, lastCreated: lastCreated)
        batch.fromSlice = true
        batch.slices = slices
        if slice.gap != nil {
            batch.leftOut = sections.reduce(0) { $0 + $1.smallFiles.count + $1.largeFiles.count + $1.subdirectories.count + $1.skipped.count + $1.failures.count }
        }
        return batch
    }

    /// Entries of a folder a job scanned in slices lists here before it starts (the root, and
    /// the folders listed to find a file). A worker's slice of a folder costs the coordinator
    /// its messages only; a file listed here costs it the file's `lstat`, planning and a place
    /// in an item it fills itself, which made a folder of 7,733 files at the root twice as
    /// dear as the same files in 295 folders.
    static let rootSliceEntries = 256

    /// Slices listed here before a job scanned in slices starts, at most, to find a file.
    static let slicesForAFile = 16

    /// Lists the first batch's slices here, breadth first, until one holds a file (at most
    /// `slicesForAFile` of them): a tree whose root holds only folders still starts with a file
    /// the storage probe can show workers (`ProbeSample`), so its slices go to workers at once.
    static func listUntilAFile(_ batch: inout PreparedBatch, exclude: BytePath?, context: BatchContext) {
        var listed = 0
        while batch.files.isEmpty, listed < slicesForAFile, !batch.slices.isEmpty {
            let slice = batch.slices.removeFirst()
            listed += 1
            guard let more = try? nextSlice(slice, exclude: exclude, context: context, lastCreated: nil, deep: false) else { continue }
            batch.files += more.files
            batch.skipped += more.skipped
            batch.failed += more.failed
            batch.slices += more.slices
        }
    }

    /// Turns scanned files into planned ones, numbered from `firstIndex`: refuses outputs that
    /// exist without --force and makes the output folders.
    static func plan(_ scan: ScanResult, finished: Bool, context: BatchContext, firstIndex: Int, lastCreated: OutputFolder?) -> PreparedBatch {
        var batch = PreparedBatch()
        batch.finished = finished
        batch.lastCreatedFolder = lastCreated
        batch.skipped = scan.skipped.map { EntryNote(path: $0.relativePath.display, reason: $0.reason) }
        batch.failed = scan.failures.map { EntryNote(path: $0.relativePath.display, reason: $0.reason) }
        var published: [[UInt8]: PublishedFile] = [:]
        if let earlier = context.earlier {
            do {
                published = try earlier.lookup(scan.files.map(\.relativePath.bytes))
            } catch {
                // Without the journal a file's earlier output cannot be told from someone else's.
                batch.failed += scan.files.map { EntryNote(path: $0.relativePath.display, reason: "\(error)") }
                return batch
            }
        }
        for found in scan.files {
            let outputPath = BytePath(bytes: context.destination.appending(found.relativePath).bytes + Array(".gz".utf8))
            var replacesOwnOutput = false
            if let record = published[found.relativePath.bytes] {
                switch ResumeDecision.decide(record, source: found.stamp, found: OutputFacts.read(outputPath)) {
                case .keep:
                    batch.kept.append(KeptFile(bytesIn: record.sourceSize, bytesOut: record.outputSize))
                    continue
                case .redo(let replacingOwn):
                    replacesOwnOutput = replacingOwn
                }
            }
            let parent = outputPath.parent
            if parent != batch.lastCreatedFolder?.path {
                do {
                    // The destination exists already; whether the job made it, `prepare` says.
                    let made = parent == context.destination ? false : try Directories.create(parent)
                    batch.lastCreatedFolder = OutputFolder(path: parent, fresh: made)
                } catch {
                    batch.failed.append(EntryNote(path: found.relativePath.display, reason: "\(error)"))
                    continue
                }
            }
            let fresh = batch.lastCreatedFolder?.fresh == true
            if !context.force && !replacesOwnOutput && !fresh && Directories.exists(outputPath) {
                batch.failed.append(EntryNote(path: found.relativePath.display, reason: "output \(outputPath.display) already exists (use --force to replace it)", outputExists: true))
                continue
            }
            batch.files.append(PlannedFile(
                index: firstIndex + batch.files.count, relativePath: found.relativePath,
                stamp: found.stamp, layout: BlockLayout(fileSize: found.stamp.size, blockSize: context.blockSize),
                replacesOwnOutput: replacesOwnOutput))
        }
        return batch
    }

    /// Creates the destination folder and refuses one inside (or equal to) the source; says
    /// whether it existed before.
    static func prepareDestination(
        _ path: BytePath, display: String?, source: BytePath, sourceIsDirectory: Bool, base: BytePath?
    ) throws -> (path: BytePath, existed: Bool) {
        let shown = display ?? path.display
        if let existing = try? Directories.status(path), existing.st_mode & S_IFMT != S_IFDIR {
            throw CoordinatorError("\(shown): destination exists and is not a directory")
        }
        if let base {
            // Checked before anything is created, so a refused request leaves no folders behind.
            try refuseOutside(path, base: base, shown: shown)
        }
        let existed = Directories.exists(path)
        do {
            try Directories.create(path)
        } catch {
            throw CoordinatorError("\(shown): cannot create destination (\((error as? FileSystemError)?.reason ?? "\(error)"))")
        }
        let destination = try Directories.canonical(path)
        if sourceIsDirectory && isWithin(destination, source) {
            if !existed { _ = destination.withCString { rmdir($0) } }
            throw CoordinatorError("\(shown): destination is inside the source \(source.display)")
        }
        if let base, !isWithin(destination, base) {
            if !existed { _ = destination.withCString { rmdir($0) } }
            throw CoordinatorError("\(shown): outside the coordinator's root \(base.display)")
        }
        return (destination, existed)
    }

    /// Throws unless the nearest existing ancestor of `path` resolves inside `base` and the
    /// components still to be created contain no `..`.
    private static func refuseOutside(_ path: BytePath, base: BytePath, shown: String) throws {
        let outside = CoordinatorError("\(shown): outside the coordinator's root \(base.display)")
        var existing = path
        while !Directories.exists(existing) {
            if existing.lastComponent == Array("..".utf8) { throw outside }
            let parent = existing.parent
            if parent == existing { break }
            existing = parent
        }
        guard let resolved = try? Directories.canonical(existing), isWithin(resolved, base) else { throw outside }
    }

    /// Relative paths are taken against the root when there is one, else the working directory.
    private static func resolve(_ path: String, against base: BytePath?) -> BytePath {
        if path.hasPrefix("/") || base == nil { return BytePath(path) }
        return base.map { $0.appending(BytePath(path)) } ?? BytePath(path)
    }

    /// Whether `path` equals `folder` or lies below it (both canonical).
    static func isWithin(_ path: BytePath, _ folder: BytePath) -> Bool {
        if path == folder { return true }
        let prefix = folder.bytes.last == UInt8(ascii: "/") ? folder.bytes : folder.bytes + [UInt8(ascii: "/")]
        return path.bytes.starts(with: prefix)
    }

    private static func relative(_ path: BytePath, to folder: BytePath) -> BytePath {
        let count = folder.bytes.count + (folder.bytes.last == UInt8(ascii: "/") ? 0 : 1)
        return BytePath(bytes: Array(path.bytes.dropFirst(count)))
    }
}
