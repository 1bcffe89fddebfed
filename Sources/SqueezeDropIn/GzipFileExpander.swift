import Glibc
import SqueezeGzip
import SqueezeIO

/// Decompresses one gzip file into a file of its own: every member, written under a temporary
/// name beside the target, given the gzip file's mode and mtime (which squeeze and gzip set
/// from the original), made durable and renamed into place. On any failure the temporary is
/// removed, so the target holds the complete output or nothing. Blocking.
public enum GzipFileExpander {
    /// Decompresses `source` into `target`, replacing an existing target only with `replace`;
    /// the compressed and uncompressed lengths. The output is in `outputs` while it is written.
    /// A big file is decoded on `threads` threads where its blocks allow (`GzipFileDecoding`,
    /// which tells `tableDefect` of a wrong offset table).
    /// - Throws: `FileSystemError` or `ZlibError` (corrupt, truncated, trailing garbage).
    @discardableResult
    public static func expand(_ source: BytePath, to target: BytePath, replace: Bool, threads: Int = 1,
                              outputs: OutputsInProgress, tableDefect: (String) -> Void) throws -> (compressed: UInt64, uncompressed: UInt64) {
        var info = stat()
        guard source.withCString({ lstat($0, &info) }) == 0 else { throw FileSystemError.last("stat", source.display) }
        if !replace, target.withCString({ access($0, F_OK) }) == 0 {
            throw FileSystemError(operation: "create", path: target.display, errno: EEXIST, detail: "\(target.display) already exists; not overwritten")
        }
        return try outputs.write(target, like: FileStamp(info), replace: replace) { output in
            try GzipFileDecoding.decompress(source, threads: threads, tableDefect: tableDefect) { try output.write($0) }
        }
    }
}
