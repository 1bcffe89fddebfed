import Foundation
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// What a job scanned in slices lists itself at its start: the root's first entries only; the
/// rest of a big root goes to the workers as a slice of it.
@Suite("the root's slice")
struct RootSliceTests {
    /// A source folder of `count` one-byte files named `f0000`... (in its folder `subfolder`
    /// when given), and `folders` empty folders.
    private static func source(files count: Int, in subfolder: String? = nil, folders: Int = 0) throws -> (folder: String, source: String) {
        let folder = try ScratchFolder.make("root-slice")
        let source = folder + "/src"
        let files = subfolder.map { source + "/" + $0 } ?? source
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        for index in 0..<count {
            try Data([UInt8(truncatingIfNeeded: index)]).write(to: URL(fileURLWithPath: files + String(format: "/f%04d", index)))
        }
        for index in 0..<folders {
            try FileManager.default.createDirectory(atPath: source + String(format: "/d%02d", index), withIntermediateDirectories: false)
        }
        return (folder, source)
    }

    private static func prepare(_ source: String, in folder: String, sliced: Bool) throws -> PreparedJob {
        let request = JobRequest(source: source, destination: folder + "/out", level: 6, force: false, heartbeatMilliseconds: 1000)
        return try JobPreparer.prepare(request, blockSize: 1 << 20, batchFiles: 4096, root: nil, sliced: sliced)
    }

    @Test("a root of more entries than the coordinator lists: it plans the first ones, and the rest of the root is one slice after the last of them")
    func bigRoot() throws {
        let count = JobPreparer.rootSliceEntries + 44
        let (folder, source) = try Self.source(files: count)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let job = try Self.prepare(source, in: folder, sliced: true)
        let listed = job.firstBatch.files.map(\.relativePath.display)
        #expect(listed == (0..<JobPreparer.rootSliceEntries).map { String(format: "f%04d", $0) })
        #expect(job.firstBatch.slices == [ScanSlice(directory: BytePath(bytes: []), after: Array(String(format: "f%04d", JobPreparer.rootSliceEntries - 1).utf8))])

        // Not in slices (embedded mode, remote clusters' walk), the first batch is the whole root.
        let walked = try Self.prepare(source, in: folder + "/walked", sliced: false)
        #expect(walked.firstBatch.files.count == count)
    }

    @Test("a root of folders only: the folder listed to find a file is listed as far as the root would be, and the rest of it is a slice")
    func rootOfFolders() throws {
        let (folder, source) = try Self.source(files: JobPreparer.rootSliceEntries + 10, in: "big")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let job = try Self.prepare(source, in: folder, sliced: true)
        #expect(job.firstBatch.files.count == JobPreparer.rootSliceEntries)
        #expect(job.firstBatch.files.last?.relativePath.display == String(format: "big/f%04d", JobPreparer.rootSliceEntries - 1))
        #expect(job.firstBatch.slices == [ScanSlice(directory: BytePath("big"), after: Array(String(format: "f%04d", JobPreparer.rootSliceEntries - 1).utf8))])
    }

    @Test("a root of fewer entries is listed whole here, and its folders go out as slices")
    func smallRoot() throws {
        let (folder, source) = try Self.source(files: 10, folders: 3)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let job = try Self.prepare(source, in: folder, sliced: true)
        #expect(job.firstBatch.files.count == 10)
        #expect(Set(job.firstBatch.slices.map(\.directory.display)) == ["d00", "d01", "d02"])
        #expect(job.firstBatch.slices.allSatisfy { $0.after == nil })
    }
}
