import Foundation
import Glibc
import SqueezeIO
import Testing

@Suite("Job workspaces")
struct JobWorkspaceTests {
    @Test("stale removal takes only dead jobs' workspaces: not a running job's, not a user's look-alike")
    func staleRemoval() throws {
        let folder = try ScratchFolder.make("ws")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try JobWorkspace(in: BytePath(folder))
        let dead = try JobWorkspace(in: BytePath(folder))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dead.path.display + "/p1-1-0"))
        dead.remove()
        // A dead job's folder as a crash leaves it: marker present, nobody holding the lock.
        let crashed = folder + "/" + JobWorkspace.prefix + "dead"
        try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: false)
        try Data("squeeze job workspace\nabc".utf8).write(to: URL(fileURLWithPath: crashed + "/owner"))
        try Data([9]).write(to: URL(fileURLWithPath: crashed + "/p3-7-0"))
        // A user's folder and file that only share the prefix.
        let lookalike = folder + "/" + JobWorkspace.prefix + "mine"
        try FileManager.default.createDirectory(atPath: lookalike, withIntermediateDirectories: false)
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: lookalike + "/owner"))
        let userFile = folder + "/" + JobWorkspace.prefix + "file"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: userFile))

        #expect(JobWorkspace.removeStale(under: BytePath(folder)) == 1)
        #expect(!FileManager.default.fileExists(atPath: crashed))
        #expect(FileManager.default.fileExists(atPath: running.probePath.display), "a running job's workspace was removed")
        #expect(FileManager.default.fileExists(atPath: lookalike + "/owner"))
        #expect(FileManager.default.fileExists(atPath: userFile))
        #expect(running.remove())
        #expect(!FileManager.default.fileExists(atPath: running.path.display))
    }

    @Test("once removed, a late writer cannot put a piece back: workers never create folders")
    func lateWriterAfterRemoval() throws {
        let folder = try ScratchFolder.make("ws")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let workspace = try JobWorkspace(in: BytePath(folder))
        let piece = JobWorkspace.piecePath(in: workspace.path, item: 4, attempt: 9, position: 0)
        try PieceFile.write(piece, chunks: [[1, 2, 3]], member: nil, sync: false)
        #expect(workspace.remove())
        #expect(throws: FileSystemError.self) { try PieceFile.write(piece, chunks: [[1, 2, 3]], member: nil, sync: false) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("a piece is adopted only at the size its worker reported, and appended only whole")
    func pieceSizesAreChecked() throws {
        let folder = try ScratchFolder.make("ws")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let workspace = try JobWorkspace(in: BytePath(folder))
        defer { workspace.remove() }
        let piece = JobWorkspace.piecePath(in: workspace.path, item: 1, attempt: 1, position: 0)
        try PieceFile.write(piece, chunks: [[1, 2, 3, 4]], member: nil, sync: false)
        #expect(throws: FileSystemError.self) {
            _ = try AtomicOutputFile(adopting: piece, finalPath: BytePath(folder + "/a.gz"), expectedSize: 5)
        }
        #expect(!FileManager.default.fileExists(atPath: piece.display), "a refused piece stayed")

        let output = try AtomicOutputFile(finalPath: BytePath(folder + "/b.gz"), in: workspace.path)
        let good = JobWorkspace.piecePath(in: workspace.path, item: 2, attempt: 1, position: 0)
        try PieceFile.write(good, chunks: [[5, 6], [7]], member: nil, sync: false)
        try output.write([[0xAA]])
        try output.append(piece: good, length: 3)
        let short = JobWorkspace.piecePath(in: workspace.path, item: 3, attempt: 1, position: 0)
        try PieceFile.write(short, chunks: [[8]], member: nil, sync: false)
        #expect(throws: FileSystemError.self) { try output.append(piece: short, length: 2) }
        try output.write([[0xBB]])
        try output.commit(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0, replace: false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/b.gz")) == Data([0xAA, 5, 6, 7, 0xBB]))
    }
}
