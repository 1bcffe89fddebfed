import ArgumentParser
import Foundation
import Glibc
import SqueezeDropIn
import SqueezeGzip
import SqueezeIO

/// `squeeze test`: checks `.gz` files as `gzip -t` does, every one under a folder, in parallel.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Check .gz files (a file, or every .gz under a folder): the member inflates, its CRC and length match, nothing follows it.",
        discussion: "Each bad file is named on its own line on stderr. Exit status: 0 when every file is good, 2 when some are bad, 1 on a fatal error."
    )

    @Argument(help: "Files or folders to check (folders: every *.gz under them; symlinks are not followed).")
    var sources: [String]

    @Option(help: "Files checked at once (default: number of cores).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("give at least one file or folder") }
        guard (1...1024).contains(workers) else { throw ValidationError("--workers must be 1-1024") }
    }

    func run() async throws {
        let pool = BlockingIOPool(threads: workers, name: "squeeze-test")
        defer { pool.shutdown() }
        var tally = FileTally()
        for source in sources {
            let path = BytePath(source)
            let isFolder = try await pool.run { () -> Result<Bool, ExitCode> in
                var info = stat()
                guard lstat(source, &info) == 0 else { return .failure(CommandFailure.exit("\(source): \(String(cString: strerror(errno)))")) }
                return .success(info.st_mode & S_IFMT == S_IFDIR)
            }.get()
            if isFolder {
                try await checkFolder(path, pool: pool, tally: &tally)
            } else {
                tally.add(await Self.check(path, threads: workers, pool: pool))
            }
        }
        let summary = "squeeze: \(tally.files) files tested (\(Formatting.bytes(tally.bytesRead)) of gzip), \(tally.bad) bad\n"
        FileHandle.standardError.write(Data(summary.utf8))
        if tally.bad > 0 { throw ExitCode(2) }
    }

    /// Walks `folder` batch by batch and checks its `.gz` files, `workers` at a time.
    private func checkFolder(_ folder: BytePath, pool: BlockingIOPool, tally: inout FileTally) async throws {
        let walker: DirectoryWalker
        do {
            walker = try await pool.run { try DirectoryWalker(root: folder) }
        } catch {
            throw CommandFailure.exit("\((error as? FileSystemError)?.description ?? "\(error)")")
        }
        let suffix = Array(".gz".utf8)
        while true {
            let (scan, finished) = try await pool.run { (walker.next(maxFiles: 4096), walker.isFinished) }
            for failure in scan.failures {
                tally.add(.failure(folder.appending(failure.relativePath), failure.reason))
            }
            let files = scan.files.filter { $0.relativePath.bytes.count > suffix.count && $0.relativePath.bytes.suffix(3).elementsEqual(suffix) }
            // Small files spread over the workers, one each; then each big one has them all.
            let small = files.filter { $0.stamp.size < ParallelGzipDecoder.defaultMinimumBytes }.map(\.relativePath)
            await FanOut.run(small, width: workers, { path in await Self.check(folder.appending(path), pool: pool) }) { tally.add($0) }
            for file in files where file.stamp.size >= ParallelGzipDecoder.defaultMinimumBytes {
                tally.add(await Self.check(folder.appending(file.relativePath), threads: workers, pool: pool))
            }
            if finished { return }
        }
    }

    /// Checks one file on the pool (a big one on `threads` threads where its blocks allow).
    private static func check(_ path: BytePath, threads: Int = 1, pool: BlockingIOPool) async -> FileOutcome {
        do {
            return try await pool.run {
                let (bytes, _) = try GzipFileDecoding.check(path, threads: threads, multipleMembers: false) { reason in
                    // The file reads right all the same: a line, not a failure.
                    FileHandle.standardError.write(Data("squeeze: \(path.display): \(reason)\n".utf8))
                }
                return .good(read: bytes, wrote: 0)
            }
        } catch let error as ZlibError {
            return .failure(path, error.message)
        } catch let error as FileSystemError {
            return .failure(path, error.reason)
        } catch {
            return .failure(path, "\(error)")
        }
    }
}
