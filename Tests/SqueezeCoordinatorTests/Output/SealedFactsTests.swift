import Foundation
import Glibc
@testable import SqueezeIO
import Testing

@Suite("Sealed facts from what was written")
struct SealedFactsTests {
    /// The CRC field of a gzip trailer: the four bytes eight from the end, little-endian.
    private static func trailerCRC(_ bytes: [UInt8]) -> UInt32 {
        bytes[(bytes.count - 8)..<(bytes.count - 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    @Test("facts kept while writing equal the facts read back, however the bytes were split into writes")
    func trackedEqualsRead() throws {
        let folder = try ScratchFolder.make("facts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let size = Int.random(in: 18...3_000, using: &generator)
            var bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let output = try AtomicOutputFile(finalPath: BytePath(folder + "/\(round).gz"))
            var at = 0
            var cuts: [Int] = []
            while at < size {
                let length = min(size - at, [1, 3, 7, 8, 9, 64].randomElement(using: &generator) ?? 1)
                let piece = Array(bytes[at..<(at + length)])
                switch Int.random(in: 0...2, using: &generator) {
                case 0: try output.write([piece])
                case 1: try piece.withUnsafeBytes { try output.write($0) }
                default:
                    // Split again into head, body and tail, some of them empty.
                    let first = Int.random(in: 0...length, using: &generator)
                    let second = Int.random(in: first...length, using: &generator)
                    try piece[..<first].withUnsafeBytes { head in
                        try piece[first..<second].withUnsafeBytes { body in
                            try piece[second...].withUnsafeBytes { tail in try output.write(head, body, tail) }
                        }
                    }
                }
                cuts.append(length)
                at += length
            }
            if Bool.random(using: &generator) {
                // A header completed last, as an offset table is: over the first ten bytes.
                let header = (0..<10).map { _ in UInt8.random(in: 0...255, using: &generator) }
                try output.write(header, at: 0)
                bytes.replaceSubrange(0..<10, with: header)
            }
            try output.seal(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0)
            let tracked = try output.sealedFacts()
            let read = try output.readSealedFacts()
            #expect(tracked == read, "writes of \(cuts)")
            #expect(tracked.size == UInt64(size))
            #expect(tracked.crc == Self.trailerCRC(bytes), "writes of \(cuts)")
            output.discard()
        }
    }

    @Test("after an overwrite of the last bytes or a piece the kernel appended, the facts come from the file")
    func unseenBytesAreReadBack() throws {
        let folder = try ScratchFolder.make("facts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let content = (0..<40).map { UInt8($0) }

        let overwritten = try AtomicOutputFile(finalPath: BytePath(folder + "/a.gz"))
        try overwritten.write([content])
        try overwritten.write([0xAA, 0xBB], at: 33)
        try overwritten.seal(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0)
        var expected = content
        expected.replaceSubrange(33..<35, with: [0xAA, 0xBB])
        #expect(try overwritten.sealedFacts() == SealedFacts(size: 40, inode: try overwritten.readSealedFacts().inode, crc: Self.trailerCRC(expected)))
        overwritten.discard()

        let piecePath = folder + "/piece"
        let piece = (100..<130).map { UInt8($0) }
        try Data(piece).write(to: URL(fileURLWithPath: piecePath))
        let appended = try AtomicOutputFile(finalPath: BytePath(folder + "/b.gz"))
        try appended.write([content])
        try appended.append(piece: BytePath(piecePath), length: UInt64(piece.count))
        try appended.seal(permissions: 0o644, modifiedSeconds: 0, modifiedNanoseconds: 0)
        let facts = try appended.sealedFacts()
        #expect(facts.size == 70)
        #expect(facts.crc == Self.trailerCRC(content + piece))
        appended.discard()
    }

    @Test("what the tail knows: the end of short and long appends; nothing after unseen bytes or an overwrite near the end, until eight more are appended")
    func tail() {
        var tail = WrittenTail()
        #expect(tail.trailerCRC == nil)  // fewer than eight bytes
        [UInt8]([1, 2, 3, 4, 5, 6, 7]).withUnsafeBytes { tail.appended($0) }
        #expect(tail.trailerCRC == nil)
        [UInt8]([8]).withUnsafeBytes { tail.appended($0) }
        #expect(tail.trailerCRC == 0x0403_0201)
        [UInt8]([9, 10, 11, 12, 13, 14, 15, 16, 17, 18]).withUnsafeBytes { tail.appended($0) }
        #expect(tail.trailerCRC == 0x0E0D_0C0B)
        #expect(tail.size == 18)
        tail.overwrote(at: 0, count: 10)  // the first ten bytes, clear of the last eight
        #expect(tail.trailerCRC == 0x0E0D_0C0B)
        tail.overwrote(at: 10, count: 1)  // the first of the last eight
        #expect(tail.trailerCRC == nil)

        var unseen = WrittenTail()
        [UInt8](repeating: 1, count: 20).withUnsafeBytes { unseen.appended($0) }
        unseen.appendedUnseen(5)
        #expect(unseen.size == 25)
        #expect(unseen.trailerCRC == nil)
        [UInt8]([2, 2, 2, 2, 2, 2, 2]).withUnsafeBytes { unseen.appended($0) }
        #expect(unseen.trailerCRC == nil)  // seven seen: the eighth from the end is not
        [UInt8]([3]).withUnsafeBytes { unseen.appended($0) }
        #expect(unseen.trailerCRC == 0x0202_0202)

        var huge = WrittenTail()
        huge.overwrote(at: UInt64.max - 1, count: 8)  // past the end of any file: no trap
        #expect(huge.trailerCRC == nil)
    }

    @Test("temporaries of one process get distinct names with the prefix")
    func temporaryNames() throws {
        let folder = try ScratchFolder.make("facts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outputs = try (0..<500).map { try AtomicOutputFile(finalPath: BytePath(folder + "/f\($0).gz")) }
        let names = Set(outputs.map { $0.temporaryPath.display })
        #expect(names.count == 500)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { $0.hasPrefix(AtomicOutputFile.temporaryPrefix) })
        for output in outputs { output.discard() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
