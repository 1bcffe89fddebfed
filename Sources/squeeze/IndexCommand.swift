import ArgumentParser
import Foundation
import Glibc
import SqueezeGzip
import SqueezeIO

/// `squeeze index`: writes a GZIDX index of a gzip file, for random access and parallel
/// decompression with rapidgzip (`--import-index`) and Python's indexed_gzip.
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Write an index of a .gz file (indexed_gzip's GZIDX format) that rapidgzip and indexed_gzip import.",
        discussion: """
            A file squeeze wrote with its offset table (squeeze -c FILE, squeeze FILE) is indexed from \
            the table at once, without decoding (squeeze test or -t checks the data): a point without a \
            window at a restart point every SPACING uncompressed bytes. Any other file is decoded once, its CRC-32 and length checked; a point is put at the \
            first deflate block boundary after every SPACING uncompressed bytes, with the 32 KiB before it. \
            rapidgzip: `rapidgzip --import-index FILE.gz.gzidx -d FILE.gz`; Python: \
            `indexed_gzip.IndexedGzipFile("FILE.gz", index_file="FILE.gz.gzidx")`. \
            Exit status: 0 when the index is written, 2 when the file is damaged, 1 on any other error \
            (not a gzip file, an index that exists without --force). A table that cannot be used is \
            named in one line and the file indexed by decoding.
            """
    )

    @Argument(help: "The gzip file.")
    var source: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "Where the index goes (default: SOURCE.gzidx).")
    var destination: String?

    @Option(help: "Uncompressed bytes between points (default 4M; at least 32K): smaller means faster seeks and a larger index.")
    var spacing: ByteSize?

    @Flag(help: "Replace an index that exists.")
    var force = false

    func validate() throws {
        if let spacing, !(GzipIndex.windowSize...Int(UInt32.max)).contains(spacing.bytes) {
            throw ValidationError("--spacing must be 32K to 4G")
        }
    }

    func run() async throws {
        let target = destination ?? source + ".gzidx"
        let spacing = spacing?.bytes ?? 4 << 20
        let force = force
        let pool = BlockingIOPool(threads: 1, name: "squeeze-index")
        defer { pool.shutdown() }
        do {
            let index = try await pool.run {
                if !force, access(target, F_OK) == 0 {
                    throw CommandFailure.exit("\(target): already exists (use --force to replace it)")
                }
                if let index = try Self.fromTable(source, spacing: spacing) {
                    try Data(index.encoded()).write(to: URL(fileURLWithPath: target), options: .atomic)
                    return (index, true)
                }
                let builder = try GzipIndexBuilder(spacing: spacing)
                _ = try ChunkReader.read(BytePath(source)) { try builder.feed($0) }
                let index = try builder.finish()
                try Data(index.encoded()).write(to: URL(fileURLWithPath: target), options: .atomic)
                return (index, false)
            }
            let how = index.1 ? "from its offset table" : "\(index.0.points.filter { $0.window != nil }.count) with a window"
            FileHandle.standardError.write(Data("squeeze: \(target): \(index.0.points.count) points (\(how)) over \(Formatting.bytes(index.0.uncompressedSize))\n".utf8))
        } catch let error as ExitCode {
            throw error
        } catch let error as ZlibError where error.message.contains("not in gzip format") {
            throw CommandFailure.exit("\(source): \(error.message)")
        } catch let error as ZlibError {
            // Damaged: as `squeeze test` reports a bad file.
            FileHandle.standardError.write(Data("squeeze: \(source): \(error.message)\n".utf8))
            throw ExitCode(2)
        } catch let error as FileSystemError {
            throw CommandFailure.exit(error.description)
        } catch {
            throw CommandFailure.exit("\(target): \(error)")
        }
    }

    /// The index from the offset table of a regular file that has a usable one; nil (after a
    /// line saying why, for a table that cannot be used) otherwise. Blocking.
    private static func fromTable(_ source: String, spacing: Int) throws -> GzipIndex? {
        let fd = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.last("open", source) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError.last("fstat", source) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        let outcome = try GzipTableIndex.make(size: UInt64(info.st_size), spacing: spacing) { offset, buffer in
            try FileDescriptorIO.read(fd, at: offset, into: buffer, name: source)
        }
        switch outcome {
        case .index(let index): return index
        case .absent: return nil
        case .unusable(let reason):
            FileHandle.standardError.write(Data("squeeze: \(source): \(reason); indexed by decoding\n".utf8))
            return nil
        }
    }
}
