import GRDB
@testable import SqueezeJournal
import Testing

@Suite("Published groups")
struct PublishedGroupTests {
    @Test("records pack to varints and back, extremes included; a number over 64 bits, a name past the end and a count that disagrees are corrupt")
    func packing() throws {
        var extreme = Samples.published(job: 1, path: Array("d/z".utf8))
        extreme.sourceSize = .max
        extreme.sourceModifiedSeconds = .min
        extreme.outputInode = 0
        extreme.crc = .max
        let group = PublishedGroup(job: 1, directory: Array("d/".utf8), files: [Samples.published(job: 1, path: Array("d/a".utf8)), extreme])
        let packed = group.packed()
        let row = try #require(try DatabaseQueue().read { try Row.fetchOne($0, sql: "SELECT 1") })
        let stored = StoredRow(row, .publishedGroup(job: 1, directory: Array("d/".utf8)))
        #expect(try PublishedGroup.unpack(packed, count: 2, job: 1, directory: group.directory, row: stored) == group.files)
        // A small file's record: a few dozen bytes, not the 76 of fixed-width fields.
        #expect(packed.count < 2 * 60)

        let tooLong: [UInt8] = [1, UInt8(ascii: "a")] + Array(repeating: 0xFF, count: 10) + [0x01]
        #expect(reason { try PublishedGroup.unpack(tooLong, count: 1, job: 1, directory: [], row: stored) } == #"published files of job 1 in folder "d/": a number runs past 64 bits"#)
        #expect(reason { try PublishedGroup.unpack([9, 0x61], count: 1, job: 1, directory: [], row: stored) } == #"published files of job 1 in folder "d/": a record is cut short"#)
        #expect(reason { try PublishedGroup.unpack(packed, count: 3, job: 1, directory: group.directory, row: stored) } == #"published files of job 1 in folder "d/": 2 records where the row says 3"#)
    }

    @Test("grouping: by job and folder, names sorted whatever the order given, the later of a path given twice kept")
    func grouping() {
        let later = Samples.published(job: 1, path: Array("a/x".utf8), seed: 99)
        let files = [
            Samples.published(job: 1, path: Array("a/y".utf8)), Samples.published(job: 1, path: Array("a/x".utf8)),
            Samples.published(job: 2, path: Array("a/x".utf8)), Samples.published(job: 1, path: Array("top".utf8)),
            Samples.published(job: 1, path: Array("a/b/x".utf8)), later,
        ]
        let groups = PublishedGroup.grouping(files)
        #expect(groups.map { "\($0.job) \(String(decoding: $0.directory, as: UTF8.self))" } == ["1 a/", "2 a/", "1 ", "1 a/b/"])
        #expect(groups[0].files == [later, files[0]])
        #expect(groups[1].files == [files[2]] && groups[2].files == [files[3]] && groups[3].files == [files[4]])
    }

    @Test("any path's bytes come back: a leading slash, two slashes in a row, a trailing slash, none")
    func oddPaths() throws {
        let paths = ["/x", "a//b", "a/", "plain", "/", ""].map { Array($0.utf8) }
        let files = paths.enumerated().map { Samples.published(job: 1, path: $1, seed: UInt64($0)) }
        let row = try #require(try DatabaseQueue().read { try Row.fetchOne($0, sql: "SELECT 1") })
        var back: [PublishedFile] = []
        for group in PublishedGroup.grouping(files) {
            let stored = StoredRow(row, .publishedGroup(job: 1, directory: group.directory))
            back += try PublishedGroup.unpack(group.packed(), count: group.files.count, job: 1, directory: group.directory, row: stored)
        }
        #expect(Set(back.map(\.path)) == Set(paths) && back.count == paths.count)
        #expect(back.allSatisfy { file in files.contains(file) })
    }

    private func reason(_ body: () throws -> [PublishedFile]) -> String? {
        do {
            _ = try body()
            return nil
        } catch let problem as JournalProblem {
            return problem.reason
        } catch {
            return "\(error)"
        }
    }
}
