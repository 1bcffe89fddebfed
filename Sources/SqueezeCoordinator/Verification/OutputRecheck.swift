import Foundation
import SqueezeGzip
import SqueezeIO

/// The coordinator's own pass over a job's published outputs after an audit caught two workers
/// vouching for corrupt bytes together (`CoordinatorCore.collusionCaught`): every output the
/// job published may hold their work, so each is decoded and compared byte for byte with its
/// source, and one that differs or does not decode is compressed again here, with the job's
/// block size, setting and header, so it gets the bytes an honest cluster writes.
///
/// Not a CRC comparison: whoever wrote the output knew the source's CRC-32 and could have made
/// other bytes with it. Blocking: on the coordinator's verification threads.
struct OutputRecheck: Sendable {
    /// The job.
    var job: JobID
    /// Where its sources are, and which: a whole folder (walked as the job walked it, leaving
    /// out `exclude`), or the one file `singleFile` (relative to `sourceRoot`).
    var sourceRoot: BytePath
    var singleFile: BytePath?
    var exclude: BytePath?
    /// Where its outputs are (`relative path` + `.gz` under it).
    var destination: BytePath
    /// How the job compresses: what a redone output is made with.
    var setting: EngineSetting
    var blockSize: Int
    var level: Int

    /// What the pass found.
    struct Outcome: Sendable {
        /// Outputs decoded and compared with their sources.
        var checked = 0
        /// Relative paths of outputs that differed and were written again.
        var redone: [BytePath] = []
        /// Outputs that could not be checked or written again, with why.
        var failures: [(path: BytePath, reason: String)] = []
    }

    /// Checks every output of the job, redoing those that differ.
    func run() -> Outcome {
        var outcome = Outcome()
        if let singleFile {
            recheck(singleFile, into: &outcome)
            return outcome
        }
        let walker: DirectoryWalker
        do {
            walker = try DirectoryWalker(root: sourceRoot, exclude: exclude)
        } catch {
            outcome.failures.append((BytePath(bytes: []), "\(error)"))
            return outcome
        }
        while !walker.isFinished {
            for file in walker.next(maxFiles: 4096).files {
                recheck(file.relativePath, into: &outcome)
            }
        }
        return outcome
    }

    private func recheck(_ relative: BytePath, into outcome: inout Outcome) {
        let source = sourceRoot.appending(relative)
        let output = BytePath(bytes: destination.appending(relative).bytes + Array(".gz".utf8))
        // No output: the file failed or was skipped, and nothing was published for it.
        guard output.withCString({ access($0, F_OK) }) == 0 else { return }
        outcome.checked += 1
        do {
            if try Self.matches(output: output, source: source) { return }
            try redo(relative, source: source, output: output)
            outcome.redone.append(relative)
        } catch {
            outcome.failures.append((relative, "\(error)"))
        }
    }

    /// Whether `output` decodes, as one gzip member, to exactly the bytes of `source`.
    static func matches(output: BytePath, source: BytePath) throws -> Bool {
        let fd = source.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", source.display) }
        defer { close(fd) }
        let decoder = try GzipStreamDecoder(multipleMembers: false, strict: true)
        var expected = [UInt8](repeating: 0, count: 256 * 1024)
        var same = true
        do {
            try ChunkReader.read(output) { compressed in
                try decoder.feed(compressed) { decoded in
                    guard same else { return }
                    var offset = 0
                    while offset < decoded.count {
                        let want = min(expected.count, decoded.count - offset)
                        let got = try expected.withUnsafeMutableBytes { buffer in
                            try Self.readFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), name: source.display)
                        }
                        let agrees = got == want && expected.withUnsafeBytes { buffer in
                            guard let mine = buffer.baseAddress, let theirs = decoded.baseAddress else { return want == 0 }
                            return memcmp(mine, theirs + offset, want) == 0
                        }
                        guard agrees else {
                            same = false
                            return
                        }
                        offset += want
                    }
                }
            }
            try decoder.finish()
        } catch is ZlibError {
            return false
        }
        guard same else { return false }
        // Nothing of the source may be left over.
        var probe: UInt8 = 0
        let rest = FileDescriptorIO.retryingEINTR { read(fd, &probe, 1) }
        guard rest >= 0 else { throw FileSystemError.last("read", source.display) }
        return rest == 0
    }

    /// Reads until `buffer` is full or the file ends; returns the bytes read.
    private static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, name: String) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = FileDescriptorIO.retryingEINTR { read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled) }
            guard count >= 0 else { throw FileSystemError.last("read", name) }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Compresses `source` again into `output`, replacing it: the job's header (name, mtime,
    /// level, offset table), blocks and setting, the source's permissions and mtime, like the writers.
    private func redo(_ relative: BytePath, source: BytePath, output: BytePath) throws {
        var info = stat()
        guard source.withCString({ stat($0, &info) }) == 0 else { throw FileSystemError.last("stat", source.display) }
        let stamp = FileStamp(info)
        let header = GzipHeader(fileName: relative.lastComponent, modificationTime: UInt32(clamping: stamp.modifiedSeconds), level: level)
        let threads = try DeflateThreads(setting: setting, count: 1)
        defer { threads.shutdown() }
        let file = try AtomicOutputFile(finalPath: output)
        do {
            // Planned at the source's size: a member of several blocks gets the offset table the
            // job's writers give it (a source that changes meanwhile fails instead).
            let writer = try ParallelGzipWriter(threads: threads, blockSize: blockSize, header: header,
                                                plannedSize: UInt64(clamping: max(0, info.st_size))) { try file.write($0) }
            try ChunkReader.read(source) { try writer.write($0) }
            if let finalHeader = try writer.finish().finalHeader { try file.write(finalHeader, at: 0) }
            try file.commit(permissions: stamp.permissions, modifiedSeconds: stamp.modifiedSeconds,
                            modifiedNanoseconds: stamp.modifiedNanoseconds, replace: true)
        } catch {
            file.discard()
            throw error
        }
    }
}
