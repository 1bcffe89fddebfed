import ArgumentParser
import Foundation
import Glibc
import SqueezeDropIn
import SqueezeGzip
import SqueezeIO

/// `squeeze decompress`: the way back. A `.squeezed` folder becomes its tree again (files in
/// parallel, each with the mode and mtime its `.gz` carries from the original); a `.gz` file
/// becomes its file; a `.tar.gz` or `.tgz` is extracted into a folder.
struct DecompressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decompress",
        abstract: "Decompress a .squeezed folder back into its tree, a .gz file into its file, or a .tar.gz into a folder.",
        discussion: "Outputs are written under temporary names and renamed into place when complete. Each failed file is named on its own line on stderr. Exit status: 0 when every file was decompressed, 2 when some failed, 1 on a fatal error."
    )

    @Argument(help: "A .squeezed folder, a .gz file, or a .tar.gz/.tgz file.")
    var source: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "Where to (default: SRC without .squeezed, .gz, .tar.gz or .tgz).")
    var destination: String?

    @Flag(help: "Decompress into DEST even if it exists, replacing files there.")
    var force = false

    @Option(help: "Files decompressed at once (default: number of cores).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard (1...1024).contains(workers) else { throw ValidationError("--workers must be 1-1024") }
    }

    func run() async throws {
        let pool = BlockingIOPool(threads: workers, name: "squeeze-decompress")
        defer { pool.shutdown() }
        let outputs = OutputsInProgress()
        let trap = SignalTrap { outputs.abandon(signal: $0) }
        defer { withExtendedLifetime(trap) {} }
        let path = BytePath(source)
        let isFolder = try await pool.run { () -> Result<Bool, ExitCode> in
            var info = stat()
            guard path.withCString({ stat($0, &info) }) == 0 else {
                return .failure(CommandFailure.exit("\(path.display): \(String(cString: strerror(errno)))"))
            }
            return .success(info.st_mode & S_IFMT == S_IFDIR)
        }.get()
        var tally = FileTally()
        if isFolder {
            let target = try destinationPath(stripping: ".squeezed", what: "a .squeezed folder")
            try await claim(target, pool: pool)
            try await expandFolder(path, into: target, pool: pool, outputs: outputs, tally: &tally)
        } else if let suffix = [".tar.gz", ".tgz"].first(where: { source.hasSuffix($0) }), destination != nil || source.count > suffix.count {
            let target = try destinationPath(stripping: suffix, what: "a .tar.gz file")
            tally.add(try await extractArchive(path, into: target, pool: pool))
        } else {
            let target = try destinationPath(stripping: ".gz", what: "a .gz file")
            let force = force
            tally.add(await Self.expand(path, to: target, replace: force, threads: workers, pool: pool, outputs: outputs))
        }
        let summary = "squeeze: \(tally.files) files decompressed (\(Formatting.bytes(tally.bytesRead)) of gzip to \(Formatting.bytes(tally.bytesWritten))), \(tally.bad) failed\n"
        FileHandle.standardError.write(Data(summary.utf8))
        if tally.bad > 0 { throw ExitCode(2) }
    }

    /// `-o`, or the source without `suffix` (trailing slashes dropped); a usage error when it
    /// does not end with it.
    private func destinationPath(stripping suffix: String, what: String) throws -> BytePath {
        if let destination { return BytePath(destination) }
        var trimmed = Array(source.utf8)
        while trimmed.count > 1 && trimmed.last == UInt8(ascii: "/") { trimmed.removeLast() }
        let ending = Array(suffix.utf8)
        guard trimmed.count > ending.count, trimmed.suffix(ending.count).elementsEqual(ending) else {
            throw CommandFailure.exit("\(source): not named like \(what) (…\(suffix)): say where to with -o DEST")
        }
        return BytePath(bytes: Array(trimmed.dropLast(ending.count)))
    }

    /// Extracts a `.tar.gz` into `target`. A new folder is extracted under a temporary name
    /// beside it and renamed into place only when the whole archive went well, so a truncated
    /// or corrupt archive leaves nothing under the final name; with `--force` into an existing
    /// folder, entries are extracted in place.
    private func extractArchive(_ archive: BytePath, into target: BytePath, pool: BlockingIOPool) async throws -> FileOutcome {
        let exists = try await pool.run { target.withCString { access($0, F_OK) } == 0 }
        if exists && !force {
            throw CommandFailure.exit("\(target.display) already exists: choose another with -o, or --force to decompress into it")
        }
        let staging = exists ? target : target.parent.appending(Array((AtomicOutputFile.temporaryPrefix + String(UInt64.random(in: 1...UInt64.max), radix: 16)).utf8))
        try await claim(staging, pool: pool)
        do {
            let (read, wrote) = try await pool.run { () throws -> (UInt64, UInt64) in
                let lengths = try TarExtraction.extract(archive, into: staging)
                if staging != target, Directories.renameWithoutReplacing(staging, to: target) != 0 {
                    throw FileSystemError.last("rename", target.display)
                }
                return lengths
            }
            return .good(read: read, wrote: wrote)
        } catch {
            if staging != target {
                try? await pool.run { try FileManager.default.removeItem(atPath: String(decoding: staging.bytes, as: UTF8.self)) }
            }
            switch error {
            case let error as ZlibError: return .failure(archive, error.message)
            case let error as FileSystemError: return .failure(archive, error.description)
            default: return .failure(archive, "\(error)")
            }
        }
    }

    /// Makes the destination folder; refuses one that exists, unless `--force`.
    private func claim(_ target: BytePath, pool: BlockingIOPool) async throws {
        let force = force
        try await pool.run { () -> Result<Void, ExitCode> in
            if target.withCString({ mkdir($0, 0o777) }) == 0 { return .success(()) }
            if errno == EEXIST && force { return .success(()) }
            if errno == EEXIST {
                return .failure(CommandFailure.exit("\(target.display) already exists: choose another with -o, or --force to decompress into it"))
            }
            return .failure(CommandFailure.exit("\(target.display): cannot create (mkdir: \(String(cString: strerror(errno))))"))
        }.get()
    }

    /// Every `X.gz` under `folder` becomes `target/X`, `workers` small files at a time, then
    /// each big one on `workers` threads; the folders are made as the walk reaches them.
    private func expandFolder(_ folder: BytePath, into target: BytePath, pool: BlockingIOPool,
                              outputs: OutputsInProgress, tally: inout FileTally) async throws {
        let walker: DirectoryWalker
        do {
            walker = try await pool.run { try DirectoryWalker(root: folder) }
        } catch {
            throw CommandFailure.exit("\((error as? FileSystemError)?.description ?? "\(error)")")
        }
        let names = GzipFileNames(suffix: Array(".gz".utf8))
        let force = force
        while true {
            let (scan, finished) = try await pool.run { (walker.next(maxFiles: 4096), walker.isFinished) }
            for failure in scan.failures {
                tally.add(.failure(folder.appending(failure.relativePath), failure.reason))
            }
            let pairs = scan.files.compactMap { file in names.decompressed(file.relativePath).map { (file.relativePath, $0, file.stamp.size) } }
            let unmade = try await pool.run { Self.makeFolders(for: pairs.map(\.1), under: target) }
            for (relative, reason) in unmade {
                tally.add(.failure(target.appending(relative), reason))
            }
            let ready = pairs.filter { pair in !unmade.contains { $0.0 == pair.1.parent } }
            // Small files spread over the workers, one each; then each big one has them all.
            let big = ready.filter { $0.2 >= ParallelGzipDecoder.defaultMinimumBytes }
            await FanOut.run(ready.filter { $0.2 < ParallelGzipDecoder.defaultMinimumBytes }, width: workers, { pair in
                await Self.expand(folder.appending(pair.0), to: target.appending(pair.1), replace: force, pool: pool, outputs: outputs)
            }) { tally.add($0) }
            for pair in big {
                tally.add(await Self.expand(folder.appending(pair.0), to: target.appending(pair.1), replace: force, threads: workers, pool: pool, outputs: outputs))
            }
            if finished { return }
        }
    }

    /// Makes the parent folders of `files` under `root` (like `mkdir -p`); those that could
    /// not be made, with why.
    private static func makeFolders(for files: [BytePath], under root: BytePath) -> [(BytePath, String)] {
        var failed: [(BytePath, String)] = []
        for parent in Set(files.map(\.parent)) where parent != BytePath(".") {
            do {
                try Directories.create(root.appending(parent))
            } catch {
                failed.append((parent, "cannot create its folder (\((error as? FileSystemError)?.reason ?? "\(error)"))"))
            }
        }
        return failed
    }

    /// Decompresses one file on the pool (a big one on `threads` threads where its blocks allow).
    private static func expand(_ source: BytePath, to target: BytePath, replace: Bool, threads: Int = 1, pool: BlockingIOPool,
                               outputs: OutputsInProgress) async -> FileOutcome {
        do {
            let (read, wrote) = try await pool.run {
                try GzipFileExpander.expand(source, to: target, replace: replace, threads: threads, outputs: outputs) { reason in
                    // The file decodes right all the same: a line, not a failure.
                    FileHandle.standardError.write(Data("squeeze: \(source.display): \(reason)\n".utf8))
                }
            }
            return .good(read: read, wrote: wrote)
        } catch let error as FileSystemError {
            return .failure(source, error.detail ?? error.reason)
        } catch let error as ZlibError {
            return .failure(source, error.message)
        } catch {
            return .failure(source, "\(error)")
        }
    }
}
