import Foundation
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeWorker

/// A worker's `publish`: the granted attempt's pieces renamed into place, an existing output
/// replaced only when the grant says so, and every member that could not be published named
/// with its reason.
@Suite("Publishing a grant")
struct MemberPublisherTests {
    @Test("pieces are renamed into place; an existing output is kept unless the member replaces it; a missing piece fails")
    func publish() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-publish-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/out/sub", withIntermediateDirectories: true)
        let workspace = try JobWorkspace(in: BytePath(root + "/out"))
        for position in 0..<3 {
            let piece = JobWorkspace.piecePath(in: workspace.path, item: 4, attempt: 11, position: position)
            try Data("piece \(position)".utf8).write(to: URL(fileURLWithPath: piece.display))
        }
        // A piece of another attempt of the same item: never touched.
        let stale = JobWorkspace.piecePath(in: workspace.path, item: 4, attempt: 10, position: 0)
        try Data("stale".utf8).write(to: URL(fileURLWithPath: stale.display))
        try Data("old a".utf8).write(to: URL(fileURLWithPath: root + "/out/a.gz"))
        try Data("old b".utf8).write(to: URL(fileURLWithPath: root + "/out/sub/b.gz"))
        let grant = PublishGrant(jobID: 1, itemID: 4, attempt: 11, workspace: workspace.path.bytes, syncPieces: true, members: [
            PublishMember(position: 0, output: Array("\(root)/out/a.gz".utf8), replace: false),
            PublishMember(position: 1, output: Array("\(root)/out/sub/b.gz".utf8), replace: true),
            PublishMember(position: 2, output: Array("\(root)/out/c.gz".utf8), replace: false),
            PublishMember(position: 3, output: Array("\(root)/out/d.gz".utf8), replace: false),
        ])
        let report = MemberPublisher.publish(grant)
        #expect(report.jobID == 1 && report.itemID == 4 && report.attempt == 11)
        #expect(report.failures.map(\.position) == [0, 3])
        #expect(report.failures.first?.reason.contains("already exists") == true)
        func read(_ path: String) -> String? { (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) } }
        #expect(read(root + "/out/a.gz") == "old a")
        #expect(read(root + "/out/sub/b.gz") == "piece 1")
        #expect(read(root + "/out/c.gz") == "piece 2")
        #expect(read(JobWorkspace.piecePath(in: workspace.path, item: 4, attempt: 11, position: 0).display) == "piece 0", "a refused piece stays for the workspace's removal")
        #expect(read(stale.display) == "stale")
        #expect(!FileManager.default.fileExists(atPath: root + "/out/d.gz"))
    }
}
