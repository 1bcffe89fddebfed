import Foundation
import Glibc
import SqueezeIO
import Testing

@Suite("Write-behind of outputs")
struct WriteBehindTests {
    @Test("each full chunk starts, and the chunk before it drains, whatever the write sizes")
    func policy() {
        var policy = WriteBehind(chunk: 4096)
        #expect(policy.wrote(4000).isEmpty)
        #expect(policy.wrote(96) == [.start(0..<4096)])
        #expect(policy.wrote(4096) == [.start(4096..<8192), .drain(0..<4096)])
        // One write spanning several chunks: each starts in order and drains the one before.
        #expect(policy.wrote(3 * 4096 + 10) == [
            .start(8192..<12288), .drain(4096..<8192),
            .start(12288..<16384), .drain(8192..<12288),
            .start(16384..<20480), .drain(12288..<16384),
        ])
        #expect(policy.written == 20490)
        #expect(policy.started == 20480)
        #expect(policy.drained == 16384)
        #expect(policy.wrote(0).isEmpty)
    }

    @Test("a chunk is never below a page")
    func smallestChunk() {
        var policy = WriteBehind(chunk: 1)
        #expect(policy.chunk == 4096)
        #expect(policy.wrote(4095).isEmpty)
    }

    @Test("a large output keeps its bytes and leaves the page cache as it is written")
    func outputLeavesPageCache() throws {
        let folder = try ScratchFolder.make("wb")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let final = BytePath(folder + "/out.bin")
        let chunk: UInt64 = 1 << 20
        let output = try AtomicOutputFile(finalPath: final, writeBehindChunk: chunk)
        var generator = SystemRandomNumberGenerator()
        let pattern = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var expected: [UInt8] = []
        // 6.5 chunks in writes of uneven sizes, none aligned to the chunk.
        while expected.count < Int(chunk) * 13 / 2 {
            let piece = pattern[Int.random(in: 0..<1_000, using: &generator)..<Int.random(in: 2_000...300_000, using: &generator)]
            try piece.withUnsafeBytes { try output.write($0) }
            expected += piece
        }
        // Written and started through chunk 5, drained through chunk 4: the first four chunks
        // are on disk and out of the page cache; the last written bytes are still cached.
        let resident = try PageCacheProbe.residentPages(of: output.temporaryPath.display, bytes: expected.count)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let drainedPages = Int(chunk) * 4 / page
        if try !PageCacheProbe.isTmpfs(folder) {
            #expect(resident[..<drainedPages].filter { $0 }.count == 0, "drained chunks still cached")
        }
        #expect(resident.last == true, "the last bytes written should still be cached")
        try output.commit(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0, replace: false)
        if try !PageCacheProbe.isTmpfs(folder) {
            let after = try PageCacheProbe.residentPages(of: final.display, bytes: expected.count)
            #expect(after.filter { $0 }.count == 0, "a synced output that was written behind is dropped whole")
        }
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: final.display))) == expected)
    }

    @Test("three parts written in one call, empty ones and a part past a write-behind chunk included, are the file's bytes in order, after what came before")
    func gatheredWrite() throws {
        let folder = try ScratchFolder.make("wb")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let final = BytePath(folder + "/out.bin")
        let output = try AtomicOutputFile(finalPath: final, writeBehindChunk: 4096)
        let before: [UInt8] = [1, 2, 3]
        let head = Array("header".utf8), body = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }, tail: [UInt8] = [9, 8, 7, 6]
        try before.withUnsafeBytes { try output.write($0) }
        try head.withUnsafeBytes { h in try body.withUnsafeBytes { b in try tail.withUnsafeBytes { t in try output.write(h, b, t) } } }
        let none: [UInt8] = []
        try none.withUnsafeBytes { e in try tail.withUnsafeBytes { t in try output.write(e, t, e) } }
        try output.commit(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0, replace: false)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: final.display))) == before + head + body + tail + tail)
    }
}
