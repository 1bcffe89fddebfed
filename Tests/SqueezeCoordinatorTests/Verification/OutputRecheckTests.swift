import Foundation
import SqueezeGzip
import SqueezeIO
import Testing
@testable import SqueezeCoordinator

/// The coordinator's pass over a job's outputs after a caught collusion, on real files.
@Suite("OutputRecheck")
struct OutputRecheckTests {
    let blockSize = 64 << 10

    func honest(_ data: [UInt8], name: String, modified: Int64, setting: EngineSetting) throws -> [UInt8] {
        // With the offset table where the member has several blocks, as the job's writers give it.
        try GzipMember.compress(data, blockSize: blockSize, setting: setting,
                                header: GzipHeader(fileName: Array(name.utf8), modificationTime: UInt32(modified), level: setting.level),
                                offsetTable: true)
    }

    func write(_ bytes: [UInt8], to path: String, modified: Int64? = nil) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        if let modified {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: TimeInterval(modified))], ofItemAtPath: path)
        }
    }

    @Test("outputs that decode to other bytes (with their own valid CRC) or do not decode are written again, byte for byte as an honest cluster writes them; good ones and missing ones are left")
    func redoesWhatDiffers() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("recheck-\(UInt64.random(in: 1...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = root + "/src", destination = root + "/dst"
        for folder in [source + "/sub", destination + "/sub"] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let setting = try EngineSetting(engine: .libdeflate, level: 6)
        let modified: Int64 = 1_700_000_000
        var generator = SystemRandomNumberGenerator()
        let big = (0..<300_000).map { index in index % 7 == 0 ? UInt8.random(in: 0...255, using: &generator) : UInt8(ascii: "a") + UInt8(index % 13) }
        let small = Array("hello, squeeze\n".utf8)
        let nested = Array(repeating: UInt8(ascii: "z"), count: 5000)
        try write(big, to: source + "/f1", modified: modified)
        try write(small, to: source + "/f2", modified: modified)
        try write(nested, to: source + "/sub/f3", modified: modified)
        try write(small, to: source + "/f4", modified: modified)
        // f1: a valid member of other bytes of the same length, as a colluder with the true
        // CRC in hand could also make; f2: honest; f3: garbage; f4: no output (it failed).
        var other = big
        other[1234] ^= 0xFF
        try write(try honest(other, name: "f1", modified: modified, setting: setting), to: destination + "/f1.gz")
        try write(try honest(small, name: "f2", modified: modified, setting: setting), to: destination + "/f2.gz")
        try write([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 0xFF, 0xFF, 0xFF], to: destination + "/sub/f3.gz")

        let recheck = OutputRecheck(
            job: 1, sourceRoot: BytePath(source), singleFile: nil, exclude: nil, destination: BytePath(destination),
            setting: setting, blockSize: blockSize, level: 6)
        let outcome = recheck.run()
        #expect(outcome.checked == 3)
        #expect(outcome.redone.map(\.display) == ["f1", "sub/f3"])
        #expect(outcome.failures.isEmpty)
        let redone = try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination + "/f1.gz")))
        #expect(redone == (try honest(big, name: "f1", modified: modified, setting: setting)))
        let nestedOutput = try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination + "/sub/f3.gz")))
        #expect(nestedOutput == (try honest(nested, name: "f3", modified: modified, setting: setting)))
        let attributes = try FileManager.default.attributesOfItem(atPath: destination + "/f1.gz")
        #expect((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 == TimeInterval(modified))
        #expect(!FileManager.default.fileExists(atPath: destination + "/f4.gz"))
        // A second pass finds nothing to do.
        let again = recheck.run()
        #expect(again.checked == 3 && again.redone.isEmpty)
    }

    @Test("a job of one file checks that file only, not its neighbours")
    func singleFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("recheck-\(UInt64.random(in: 1...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let setting = try EngineSetting(engine: .libdeflate, level: 6)
        try write(Array("one".utf8), to: root + "/one", modified: 1_700_000_000)
        try write(Array("two".utf8), to: root + "/two", modified: 1_700_000_000)
        try write([1, 2, 3], to: root + "/two.gz")
        try write([1, 2, 3], to: root + "/one.gz")
        let outcome = OutputRecheck(
            job: 1, sourceRoot: BytePath(root), singleFile: BytePath("one"), exclude: nil, destination: BytePath(root),
            setting: setting, blockSize: blockSize, level: 6).run()
        #expect(outcome.checked == 1 && outcome.redone.map(\.display) == ["one"])
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/two.gz"))) == [1, 2, 3], "not this job's")
    }
}
