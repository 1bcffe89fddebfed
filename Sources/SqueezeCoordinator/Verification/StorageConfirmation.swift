import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// The coordinator's half of a storage probe that a worker answered "shared": it reads back the
/// answer file the worker wrote in the job's workspace (the worker's writes reach the
/// coordinator), removes it, and reads the sample file's first bytes itself, whose CRC-32 the
/// worker's must equal (the worker read the coordinator's files, not a copy with the same names,
/// sizes and mtimes). Only then is the worker shared for the job, whatever its inode numbers.
/// Built by the core; `run` blocks, on a runtime thread.
struct StorageConfirmation: Sendable {
    /// The worker and job the probe was for.
    let peer: PeerID
    let job: JobID
    /// The answer file, in the job's workspace.
    let answer: BytePath
    /// What it must hold: the probe's token.
    let token: [UInt8]
    /// The sample file as the scan stamped it, and the CRC-32 the worker read of its head.
    let sample: ProbeSample?
    let sampleCRC: UInt32?
    /// What the worker said it sees of the stamps.
    let view: SharedView

    /// Nil when the worker is confirmed shared; else why not.
    func run() -> String? {
        let read: [UInt8]
        do {
            read = try PieceReader.read(answer, offset: 0, count: token.count)
        } catch {
            return "the coordinator cannot read the worker's answer file: \((error as? FileSystemError)?.reason ?? "\(error)")"
        }
        _ = answer.withCString { unlink($0) }
        guard read == token else { return "the worker's answer file does not hold the probe's token" }
        guard let sample else { return nil }
        guard let sampleCRC else { return "the worker did not say what it read of the sample file" }
        let path = BytePath(bytes: sample.path)
        let stamp = FileStamp(
            size: sample.size, modifiedSeconds: sample.modifiedSeconds, modifiedNanoseconds: sample.modifiedNanoseconds,
            device: 0, inode: sample.inode, permissions: 0)
        do {
            let head = try SourceReader.read(path, expected: stamp, range: 0..<min(sample.size, UInt64(StorageProbe.sampleBytes)), matching: .sameInodes)
            guard CRC32.checksum(head) == sampleCRC else { return "the worker reads other bytes in \(path.display) than the coordinator does" }
        } catch {
            return "the coordinator cannot read the sample file: \((error as? FileSystemError)?.reason ?? "\(error)")"
        }
        return nil
    }
}
