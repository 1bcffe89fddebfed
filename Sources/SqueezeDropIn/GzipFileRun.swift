import Glibc
import SqueezeGzip
import SqueezeIO

/// One `GzipTool` run over its files: what each mode does with one file or with standard
/// input, and the running totals of `-l`.
final class GzipFileRun {
    private let tool: GzipTool
    private let threads: DeflateThreads
    private let reporter: GzipReporter
    private let interrupts: OutputsInProgress
    private var listed: (files: Int, compressed: UInt64, uncompressed: UInt64) = (0, 0, 0)

    init(tool: GzipTool, threads: DeflateThreads, reporter: GzipReporter, interrupts: OutputsInProgress) {
        self.tool = tool
        self.threads = threads
        self.reporter = reporter
        self.interrupts = interrupts
    }

    private var options: GzipOptions { tool.options }

    /// Handles one argument: standard input, a regular file, or (with `-r`) a folder.
    /// `named`: given on the command line, so skipping it deserves a warning.
    func handle(_ path: BytePath, named: Bool) {
        if path == GzipTool.standardInput {
            handleStandardInput()
            return
        }
        var info = stat()
        guard path.withCString({ lstat($0, &info) }) == 0 else {
            reporter.failed(path, String(cString: strerror(errno)))
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            handleFile(path, info: info, named: named)
        case S_IFDIR where options.recursive:
            walk(path)
        case S_IFDIR:
            reporter.warn(path, "is a directory -- ignored")
        default:
            if named { reporter.warn(path, "is not a directory or a regular file -- ignored") }
        }
    }

    /// Every regular file under `folder`, depth first; symlinks and special files are left alone.
    private func walk(_ folder: BytePath) {
        let walker: DirectoryWalker
        do {
            walker = try DirectoryWalker(root: folder)
        } catch {
            reporter.failed(folder, (error as? FileSystemError)?.reason ?? "\(error)")
            return
        }
        while !walker.isFinished {
            let batch = walker.next(maxFiles: 1024)
            for failure in batch.failures {
                reporter.failed(folder.appending(failure.relativePath), failure.reason)
            }
            for file in batch.files {
                handle(folder.appending(file.relativePath), named: false)
            }
        }
    }

    private func handleStandardInput() {
        let name = "standard input"
        do {
            switch options.mode {
            case .compress:
                let header = GzipHeader(fileName: nil, modificationTime: 0, level: options.level)
                let writer = try ParallelGzipWriter(threads: threads, blockSize: tool.blockSize, header: header, output: Self.standardOutput)
                try FileDescriptorIO.readAll(0, name: name, chunkSize: tool.blockSize) { try writer.write($0) }
                _ = try writer.finish()
            case .decompress, .test:
                let testing = options.mode == .test
                let decoder = try GzipStreamDecoder(multipleMembers: true, strict: testing)
                try FileDescriptorIO.readAll(0, name: name) { bytes in
                    try decoder.feed(bytes) { if !testing { try Self.standardOutput($0) } }
                }
                try decoder.finish()
                if options.verbose && options.mode == .test { reporter.note("\(name):\t OK") }
            case .list:
                reporter.failed(BytePath(name), "-l needs files, not standard input")
            case .help, .version:
                return
            }
        } catch {
            reporter.failed(BytePath(name), Self.reason(error))
        }
    }

    private func handleFile(_ path: BytePath, info: stat, named: Bool) {
        switch options.mode {
        case .compress:
            if tool.names.isCompressed(path) {
                if named { reporter.warn(path, "already has \(String(decoding: options.suffix, as: UTF8.self)) suffix -- unchanged") }
                return
            }
            if !options.toStandardOutput && !options.force && info.st_nlink > 1 {
                reporter.warn(path, "has \(info.st_nlink - 1) other link\(info.st_nlink > 2 ? "s" : "") -- unchanged")
                return
            }
            transform(path, info: info, to: options.toStandardOutput ? nil : tool.names.compressed(path), compressing: true)
        case .decompress:
            if options.toStandardOutput {
                transform(path, info: info, to: nil, compressing: false)
            } else if let target = tool.names.decompressed(path) {
                transform(path, info: info, to: target, compressing: false)
            } else if named {
                reporter.warn(path, "unknown suffix -- ignored")
            }
        case .test:
            guard named || tool.names.decompressed(path) != nil else { return }
            do {
                // Strict: -t asks whether every gzip tool reads the file. A big one on every core.
                _ = try GzipFileDecoding.check(path, threads: tool.threadCount, multipleMembers: true, tableDefect: tableDefect(of: path))
                if options.verbose { reporter.note("\(path.display):\t OK") }
            } catch {
                reporter.failed(path, Self.reason(error))
            }
        case .list:
            guard named || tool.names.decompressed(path) != nil else { return }
            list(path, size: UInt64(info.st_size))
        case .help, .version:
            return
        }
    }

    /// Compresses or decompresses `path` into `target`, or to stdout when it is nil. A file
    /// output is written under a temporary name, given the input's mode and mtime, made durable
    /// and renamed into place; only then is the input removed (unless `-k`).
    private func transform(_ path: BytePath, info: stat, to target: BytePath?, compressing: Bool) {
        do {
            if let target, !options.force, target.withCString({ access($0, F_OK) }) == 0 {
                reporter.warn(target, "already exists; not overwritten")
                return
            }
            let (bytesIn, bytesOut): (UInt64, UInt64)
            switch (target, compressing) {
            case (nil, true): (bytesIn, bytesOut) = try compressToStandardOutput(path, info: info)
            case (nil, false): (bytesIn, bytesOut) = try decompress(path, into: Self.standardOutput)
            case (let target?, true): (bytesIn, bytesOut) = try compress(path, info: info, toFile: target)
            case (let target?, false):
                (bytesIn, bytesOut) = try GzipFileExpander.expand(
                    path, to: target, replace: options.force, threads: tool.threadCount, outputs: interrupts, tableDefect: tableDefect(of: path))
            }
            if target != nil, !options.keep, path.withCString({ unlink($0) }) != 0 {
                reporter.failed(path, "cannot remove the input: \(String(cString: strerror(errno)))")
            }
            if options.verbose {
                let (plain, packed) = compressing ? (bytesIn, bytesOut) : (bytesOut, bytesIn)
                let ratio = plain == 0 ? 0 : 100 * (1 - Double(packed) / Double(plain))
                let replaced = target.map { options.keep ? " -- created \($0.display)" : " -- replaced with \($0.display)" } ?? ""
                reporter.note("\(path.display):\t\(Self.percent(ratio))\(replaced)")
            }
        } catch {
            reporter.failed(path, Self.reason(error))
        }
    }

    /// Compresses `path` into the file `target` as `transform` says, with its mode and mtime.
    private func compress(_ path: BytePath, info: stat, toFile target: BytePath) throws -> (UInt64, UInt64) {
        try interrupts.write(target, like: FileStamp(info), replace: options.force) { output in
            try compress(path, info: info, rewriteHeader: { try output.write($0, at: 0) }) { try output.write($0) }
        }
    }

    /// Compresses `path` to standard output; with the offset table where standard output is a
    /// file its header can be written again in, not where it is a pipe.
    private func compressToStandardOutput(_ path: BytePath, info: stat) throws -> (UInt64, UInt64) {
        let rewrite: (([UInt8]) throws -> Void)? = FileDescriptorIO.rewritablePosition(1).map { start in
            { header in try header.withUnsafeBytes { try FileDescriptorIO.writeAll(1, $0, at: start, name: "standard output") } }
        }
        return try compress(path, info: info, rewriteHeader: rewrite, into: Self.standardOutput)
    }

    /// Compresses the file at `path` into one member; its length and the member's. With
    /// `rewriteHeader` (the output can be written at the member's start again), a member of
    /// several blocks carries the offset table: its header's final bytes go there at the end.
    private func compress(
        _ path: BytePath, info: stat, rewriteHeader: (([UInt8]) throws -> Void)?, into sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (UInt64, UInt64) {
        let seconds = info.st_mtim.tv_sec
        let header = GzipHeader(fileName: options.storeName ? path.lastComponent : nil,
                                modificationTime: options.storeName && (0...Int(UInt32.max)).contains(seconds) ? UInt32(seconds) : 0,
                                level: options.level)
        let plannedSize = rewriteHeader == nil || info.st_size < 0 ? nil : UInt64(info.st_size)
        let writer = try ParallelGzipWriter(threads: threads, blockSize: tool.blockSize, header: header, plannedSize: plannedSize, output: sink)
        let read = try ChunkReader.read(path, chunkSize: tool.blockSize) { try writer.write($0) }
        if let finalHeader = try writer.finish().finalHeader { try rewriteHeader?(finalHeader) }
        return (read, writer.bytesOut)
    }

    /// Decompresses the gzip file at `path`, every member; its length and what it held.
    private func decompress(_ path: BytePath, into sink: (UnsafeRawBufferPointer) throws -> Void) throws -> (UInt64, UInt64) {
        try GzipFileDecoding.decompress(path, threads: tool.threadCount, tableDefect: tableDefect(of: path), into: sink)
    }

    /// Says in one line that `path`'s offset table is wrong; the file decoded right, so the
    /// exit status stays.
    private func tableDefect(of path: BytePath) -> (String) -> Void {
        { [reporter] reason in reporter.say("\(path.display): \(reason)") }
    }

    /// gzip -l's heading.
    func listHeading() {
        Self.printLine(Self.column("compressed") + " " + Self.column("uncompressed") + "  ratio uncompressed_name")
    }

    /// gzip -l's totals line, when more than one file was listed.
    func listTotals() {
        guard listed.files > 1 else { return }
        Self.printLine(Self.listLine(compressed: listed.compressed, uncompressed: listed.uncompressed, name: "(totals)"))
    }

    /// One `-l` line: sizes from the file's length and the last member's ISIZE, as gzip reads them.
    private func list(_ path: BytePath, size: UInt64) {
        do {
            let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else { throw FileSystemError.last("open", path.display) }
            defer { close(fd) }
            var head = [UInt8](repeating: 0, count: 2)
            var tail = [UInt8](repeating: 0, count: 4)
            guard size >= 18,
                  head.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 2, 0) }) == 2, head == [0x1f, 0x8b],
                  tail.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 4, off_t(size - 4)) }) == 4
            else {
                reporter.failed(path, "not in gzip format")
                return
            }
            let uncompressed = tail.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let name = tool.names.decompressed(path) ?? path
            listed = (listed.files + 1, listed.compressed + size, listed.uncompressed + uncompressed)
            Self.printLine(Self.listLine(compressed: size, uncompressed: uncompressed, name: name.display))
        } catch {
            reporter.failed(path, Self.reason(error))
        }
    }

    private static func listLine(compressed: UInt64, uncompressed: UInt64, name: String) -> String {
        let ratio = uncompressed == 0 ? 0 : 100 * (1 - Double(compressed) / Double(uncompressed))
        return column("\(compressed)") + " " + column("\(uncompressed)") + " " + percent(ratio) + " " + name
    }

    private static func column(_ text: String) -> String {
        String(repeating: " ", count: max(0, 19 - text.count)) + text
    }

    /// `" 72.3%"`: one decimal, right-aligned in six characters, as gzip prints ratios.
    private static func percent(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let text = (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)%"
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }

    private static func printLine(_ line: String) {
        Array((line + "\n").utf8).withUnsafeBytes { try? FileDescriptorIO.writeAll(1, $0, name: "standard output") }
    }

    private static func standardOutput(_ bytes: UnsafeRawBufferPointer) throws {
        try FileDescriptorIO.writeAll(1, bytes, name: "standard output")
    }

    /// The reason alone, for a message that names the file itself.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as FileSystemError: error.reason
        case let error as ZlibError: error.message
        default: "\(error)"
        }
    }
}
