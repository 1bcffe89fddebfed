import SqueezeIO

/// A gzip/pigz command line, parsed (`GzipOptions.parse`): the options squeeze supports and
/// the files, as raw bytes so names that are not UTF-8 reach the kernel unchanged.
public struct GzipOptions: Sendable, Equatable {
    /// Compress, decompress, test, list, help or version.
    public var mode = GzipMode.compress
    /// `-c`: write to standard output, keep the inputs.
    public var toStandardOutput = false
    /// `-k`: keep the inputs (pigz and gzip remove them by default).
    public var keep = false
    /// `-f`: overwrite outputs, compress files with several links, read or write a terminal.
    public var force = false
    /// `-r`: descend into directories.
    public var recursive = false
    /// `-q`: no warnings.
    public var quiet = false
    /// `-v`: a line per file with its ratio.
    public var verbose = false
    /// `-n`: no file name and modification time in the header. `-N` (the default) stores them.
    public var storeName = true
    /// `-1`…`-9`, `--fast`, `--best`: the level (6 by default; 0 stores).
    public var level = 6
    /// `-p N`: compressing threads (nil: one per core).
    public var threads: Int?
    /// `-b N`: block size in KiB (nil: the default).
    public var blockKiB: Int?
    /// `-S SUF`: the suffix of compressed files.
    public var suffix: [UInt8] = Array(".gz".utf8)
    /// The files; empty means standard input. `-` is standard input too.
    public var files: [BytePath] = []

    /// The defaults: compress standard input to standard output at level 6.
    public init() {}
}
