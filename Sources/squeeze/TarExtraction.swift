import Foundation
import Glibc
import NIOConcurrencyHelpers
import SqueezeGzip
import SqueezeIO

/// Extracts a `.tar.gz` into a folder: squeeze decompresses (every member, checked), and the
/// system's `tar` reads the archive from a pipe and makes the entries, as it would with
/// `tar -xzf` — its checks against `..` and absolute names, its handling of links, FIFOs,
/// modes and mtimes. Blocking: on a pool thread.
enum TarExtraction {
    /// Extracts `archive` into the existing folder `folder`; the compressed and uncompressed lengths.
    /// - Throws: `FileSystemError`, `ZlibError`, or a `TarFailure` when tar refused the archive.
    static func extract(_ archive: BytePath, into folder: BytePath) throws -> (UInt64, UInt64) {
        // A tar that stops early must give an error here, not kill the process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        // Before tar starts: a failure after that must still close its input.
        let decoder = try GzipStreamDecoder(multipleMembers: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tar", "-x", "-f", "-", "-C", String(decoding: folder.bytes, as: UTF8.self)]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        // tar's complaints are read as they come, so a chatty tar never blocks on a full pipe.
        let complaints = NIOLockedValueBox(Data())
        let reading = DispatchSemaphore(value: 0)
        let reader = Thread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            complaints.withLockedValue { $0 = data }
            reading.signal()
        }
        reader.name = "squeeze-tar-stderr"
        reader.start()
        let writer = input.fileHandleForWriting.fileDescriptor
        var failure: (any Error)?
        var read: UInt64 = 0
        do {
            read = try ChunkReader.read(archive) { try decoder.feed($0) { try FileDescriptorIO.writeAll(writer, $0, name: "tar") } }
            try decoder.finish()
        } catch {
            failure = error
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        reading.wait()
        let said = String(decoding: complaints.withLockedValue { $0 }, as: UTF8.self)
        if let failure, (failure as? FileSystemError)?.errno != EPIPE { throw failure }
        guard process.terminationStatus == 0 else {
            throw TarFailure(message: said.split(separator: "\n").first.map(String.init) ?? "tar exited with status \(process.terminationStatus)")
        }
        return (read, decoder.uncompressedBytes)
    }
}

