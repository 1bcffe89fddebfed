import Glibc
import SqueezeGzip
import SqueezeIO

/// Runs a gzip/pigz command line (`GzipOptions`): files compressed to `FILE.gz` in place of
/// the original (kept with `-k`, to stdout with `-c`), decompressed back, tested or listed;
/// standard input to standard output when there are no files, which is what `tar -I squeeze`
/// relies on. Each stream is one gzip member compressed in parallel blocks on `DeflateThreads`;
/// decompression reads any gzip input, several members included.
///
/// Blocking from start to end: run it on a thread the project owns, never on the cooperative pool.
public struct GzipTool: Sendable {
    /// The default block for streams: the same as `squeeze compress`, so a file gives the same
    /// deflate bytes either way.
    public static let defaultBlockSize = 512 * 1024

    let options: GzipOptions
    let names: GzipFileNames
    private let inputIsTerminal: Bool
    private let outputIsTerminal: Bool
    /// Threads a run may use (-p, else the cores): compressing, or decoding one big file.
    let threadCount: Int

    /// A run of `options`; whether stdin and stdout are terminals decides gzip's refusals, and
    /// `cores` is the thread count without `-p`.
    public init(options: GzipOptions, inputIsTerminal: Bool, outputIsTerminal: Bool, cores: Int) {
        self.options = options
        names = GzipFileNames(suffix: options.suffix)
        self.inputIsTerminal = inputIsTerminal
        self.outputIsTerminal = outputIsTerminal
        threadCount = options.threads ?? max(1, cores)
    }

    /// Runs the command line; the exit status: 0 when every file went well, 2 when some failed
    /// or were skipped with a warning, 1 when nothing could run.
    public func run() -> Int32 {
        let reporter = GzipReporter(quiet: options.quiet)
        let files = options.files.isEmpty ? [Self.standardInput] : options.files
        let readsInput = files.contains(Self.standardInput)
        let writesCompressedOutput = options.mode == .compress && (options.toStandardOutput || readsInput)
        if !options.force && writesCompressedOutput && (outputIsTerminal || (options.files.isEmpty && inputIsTerminal)) {
            reporter.say("compressed data not written to a terminal. Use -f to force compression.\nFor help, type: squeeze -h")
            return 1
        }
        if !options.force && readsInput && inputIsTerminal && options.mode != .compress {
            reporter.say("compressed data not read from a terminal. Use -f to force decompression.\nFor help, type: squeeze -h")
            return 1
        }
        let threads: DeflateThreads
        do {
            let setting = try LevelTable.setting(forLevel: options.level)
            threads = try DeflateThreads(setting: setting, count: options.mode == .compress ? threadCount : 1)
        } catch {
            reporter.say("\(error)")
            return 1
        }
        defer { threads.shutdown() }
        let interrupts = OutputsInProgress()
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP]) { interrupts.abandon(signal: $0) }
        defer { withExtendedLifetime(trap) {} }
        let run = GzipFileRun(tool: self, threads: threads, reporter: reporter, interrupts: interrupts)
        if options.mode == .list { run.listHeading() }
        for file in files {
            run.handle(file, named: true)
        }
        if options.mode == .list { run.listTotals() }
        return reporter.status
    }

    /// `-` on the command line: standard input.
    static let standardInput = BytePath("-")

    /// Bytes per block.
    var blockSize: Int {
        options.blockKiB.map { $0 * 1024 } ?? Self.defaultBlockSize
    }
}
