import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Validates a request and scans its source. Blocking (stat, realpath, directory walks,
/// mkdir): runs on the I/O pool, never on the actor.
enum JobPreparer {
    static func prepare(_ request: JobRequest, blockSize: Int, root: String?, shouldStop: () -> Bool = { false }) throws -> PreparedJob {
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
        let destinationArgument = request.destination.map { resolve($0, against: base) }
            ?? BytePath(bytes: sourceArgument.bytes + Array(".squeezed".utf8))
        let destination = try prepareDestination(destinationArgument, display: request.destination, source: source, sourceIsDirectory: isDirectory, base: base)

        var scan: ScanResult
        let sourceRoot: BytePath
        if isDirectory {
            sourceRoot = source
            let exclude = isWithin(destination, source) ? relative(destination, to: source) : nil
            scan = try DirectoryScanner.scan(root: source, exclude: exclude, shouldStop: shouldStop)
        } else {
            sourceRoot = source.parent
            scan = ScanResult()
            scan.files = [ScannedFile(relativePath: BytePath(bytes: source.lastComponent), stamp: FileStamp(info))]
        }
        JobWorkspace.removeStale(under: destination)
        let workspace: JobWorkspace
        do {
            workspace = try JobWorkspace(in: destination)
        } catch {
            throw CoordinatorError("\(destination.display): cannot create the job's workspace (\((error as? FileSystemError)?.reason ?? "\(error)"))")
        }

        var failed = scan.failures.map { EntryNote(path: $0.relativePath.display, reason: $0.reason) }
        var files: [PlannedFile] = []
        var createdDirectories: Set<BytePath> = [destination]
        for found in scan.files {
            let output = destination.appending(found.relativePath)
            let outputPath = BytePath(bytes: output.bytes + Array(".gz".utf8))
            if !request.force && Directories.exists(outputPath) {
                failed.append(EntryNote(path: found.relativePath.display, reason: "output \(outputPath.display) already exists (use --force to replace it)"))
                continue
            }
            let parent = outputPath.parent
            if !createdDirectories.contains(parent) {
                do {
                    try Directories.create(parent)
                    createdDirectories.insert(parent)
                } catch {
                    failed.append(EntryNote(path: found.relativePath.display, reason: "\(error)"))
                    continue
                }
            }
            files.append(PlannedFile(
                index: files.count, relativePath: found.relativePath,
                sourcePath: sourceRoot.appending(found.relativePath), outputPath: outputPath,
                stamp: found.stamp, layout: BlockLayout(fileSize: found.stamp.size, blockSize: blockSize)))
        }
        return PreparedJob(
            sourceDisplay: request.source, destination: destination, files: files,
            skipped: scan.skipped.map { EntryNote(path: $0.relativePath.display, reason: $0.reason) },
            failed: failed, workspace: workspace)
    }

    /// Creates the destination folder and refuses one inside (or equal to) the source.
    private static func prepareDestination(_ path: BytePath, display: String?, source: BytePath, sourceIsDirectory: Bool, base: BytePath?) throws -> BytePath {
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
        return destination
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
