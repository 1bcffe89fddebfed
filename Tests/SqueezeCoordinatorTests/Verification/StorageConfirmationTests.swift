import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// The coordinator's reads that confirm a worker's "shared" probe answer, on real files.
@Suite("StorageConfirmation: the answer file and the sample's first bytes")
struct StorageConfirmationTests {
    struct Folder {
        let path: String
        let sample: ProbeSample
        let crc: UInt32

        /// A workspace with an answer file holding `answer`, and a sample file of 100 KiB.
        init(answer: String?) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("confirm-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            if let answer { try Data(answer.utf8).write(to: URL(fileURLWithPath: path + "/answer-1")) }
            let bytes = (0..<(100 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try Data(bytes).write(to: URL(fileURLWithPath: path + "/sample"))
            let stamp = FileStamp(try #require(try Directories.status(BytePath(path + "/sample"))))
            sample = ProbeSample(path: Array((path + "/sample").utf8), size: stamp.size, modifiedSeconds: stamp.modifiedSeconds,
                                 modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode)
            crc = CRC32.checksum(Array(bytes.prefix(StorageProbe.sampleBytes)))
        }

        func confirmation(crc: UInt32?) -> StorageConfirmation {
            StorageConfirmation(peer: "a", job: 1, answer: BytePath(path + "/answer-1"), token: Array("t0k3n".utf8), sample: sample,
                                sampleCRC: crc, view: .same)
        }
    }

    @Test("the token in the answer file and the sample's CRC: confirmed, and the answer file is gone")
    func confirmed() throws {
        let folder = try Folder(answer: "t0k3n")
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        #expect(folder.confirmation(crc: folder.crc).run() == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/answer-1"))
    }

    @Test("another CRC, another token, no answer file, or no CRC: refused, each with its reason")
    func refused() throws {
        let other = try Folder(answer: "t0k3n")
        defer { try? FileManager.default.removeItem(atPath: other.path) }
        #expect(other.confirmation(crc: other.crc ^ 1).run()?.contains("other bytes") == true)
        let forged = try Folder(answer: "f0rg3")
        defer { try? FileManager.default.removeItem(atPath: forged.path) }
        #expect(forged.confirmation(crc: forged.crc).run()?.contains("does not hold the probe's token") == true)
        let missing = try Folder(answer: nil)
        defer { try? FileManager.default.removeItem(atPath: missing.path) }
        #expect(missing.confirmation(crc: missing.crc).run()?.contains("cannot read the worker's answer file") == true)
        let silent = try Folder(answer: "t0k3n")
        defer { try? FileManager.default.removeItem(atPath: silent.path) }
        #expect(silent.confirmation(crc: nil).run()?.contains("did not say") == true)
    }
}
