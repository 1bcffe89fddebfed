/// What a gzip-style invocation does with its files.
public enum GzipMode: Sendable, Equatable {
    /// Compress (the default).
    case compress
    /// `-d`: decompress.
    case decompress
    /// `-t`: check that each file decompresses, writing nothing.
    case test
    /// `-l`: list compressed and uncompressed sizes.
    case list
    /// `-h`: the help text.
    case help
    /// `-V`: the version.
    case version
}
