import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// A writer takes several files' blocks in one command (a bundle's answer), in any order,
/// a file even twice in one command, and still writes each output whole and in order.
@Suite("Output writer")
struct OutputWriterTests {
    /// One deflate stored block holding `data`: final or not, byte-aligned either way.
    private static func stored(_ data: [UInt8], final: Bool) -> ResultBlock {
        let length = UInt16(data.count)
        let frame = [final ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + data
        return ResultBlock(crc: CRC32.checksum(data), rawLength: data.count, bytes: ZMQFrame(frame))
    }

    @Test("blocks of several files in one command, one file twice and out of order, make whole members")
    func severalFilesPerCommand() async throws {
        let folder = try WriterFolder("squeeze-writer")
        defer { folder.cleanUp() }
        let (root, workspace, pool) = (folder.root, folder.workspace, folder.pool)
        var writer = OutputWriter(pool: pool)

        // File 0 has three blocks, file 1 one, file 2 two.
        let contents: [[[UInt8]]] = [
            [Array("first block of a, ".utf8), Array("second block of a, ".utf8), Array("third and last block of a\n".utf8)],
            [Array("b, all in one block\n".utf8)],
            [Array("c begins here, ".utf8), Array("and c ends here\n".utf8)],
        ]
        let specs = contents.indices.map { file in
            OutputSpec(
                key: FileKey(job: 1, file: file), outputPath: BytePath("\(root)/out/f\(file).gz"), relativePath: Array("f\(file)".utf8),
                header: GzipHeader(fileName: nil, modificationTime: 0, level: 6), blockCount: contents[file].count,
                stamp: FileStamp(size: UInt64(contents[file].joined().count), modifiedSeconds: 0, modifiedNanoseconds: 0, device: 0, inode: 0, permissions: 0o644),
                replace: false, workspace: workspace.path)
        }
        func block(_ file: Int, _ index: Int) -> (index: Int, block: ResultBlock) {
            (index, Self.stored(contents[file][index], final: index == contents[file].count - 1))
        }

        // File 0 comes three times in the first command: its first block, its last, then its
        // middle one; file 2 only with its second block.
        let first = try await writer.handle(.blocks([
            (specs[0], [block(0, 0)]), (specs[1], [block(1, 0)]), (specs[0], [block(0, 2)]), (specs[2], [block(2, 1)]),
            (specs[0], [block(0, 1)]),
        ])).map { try $0.get() }
        #expect(first.map { $0.key.file } == [0, 1], "one step per file that could write, in the order first written")
        #expect(first.first { $0.key.file == 0 }?.blocks == 0..<3)
        #expect(first.allSatisfy { $0.sealed })

        let second = try await writer.handle(.blocks([(specs[2], [block(2, 0)])])).map { try $0.get() }
        #expect(second.map { $0.key.file } == [2])
        #expect(second.first?.blocks == 0..<2)
        #expect(second.first?.sealed == true)

        let published = try await writer.handle(.flush).map { try $0.get() }
        #expect(Set(published.filter { $0.finished }.map { $0.key.file }) == [0, 1, 2])

        for file in contents.indices {
            let gzip = Process()
            gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            gzip.arguments = ["gzip", "-dc", "\(root)/out/f\(file).gz"]
            let output = Pipe()
            gzip.standardOutput = output
            try gzip.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            gzip.waitUntilExit()
            #expect(gzip.terminationStatus == 0, "f\(file).gz is not a valid gzip file")
            #expect(Array(data) == Array(contents[file].joined()), "f\(file).gz holds the wrong bytes")
        }
    }

    @Test("taking over a grant publishes the pieces left, counts as done those its worker renamed before or during it, and fails one gone")
    func takeOver() async throws {
        let folder = try WriterFolder("squeeze-takeover")
        defer { folder.cleanUp() }
        let (root, workspace, pool) = (folder.root, folder.workspace, folder.pool)
        var writer = OutputWriter(pool: pool)
        let setting = try EngineSetting(engine: .libdeflate, level: 6)
        let contents = (0..<4).map { file in Array("member \(file) ".utf8) + [UInt8](repeating: UInt8(65 + file), count: 300 * (file + 1)) }
        var members: [(spec: OutputSpec, piece: PieceBlock)] = []
        for (file, data) in contents.enumerated() {
            let header = GzipHeader(fileName: Array("f\(file)".utf8), modificationTime: 0, level: 6)
            let member = try GzipMember.compress(data, blockSize: 1 << 20, setting: setting, header: header)
            let piece = JobWorkspace.piecePath(in: workspace.path, item: 5, attempt: 9, position: file)
            try Data(member).write(to: URL(fileURLWithPath: piece.display))
            let spec = OutputSpec(
                key: FileKey(job: 1, file: file), outputPath: BytePath("\(root)/out/f\(file).gz"), relativePath: Array("f\(file)".utf8),
                header: header, blockCount: 1,
                stamp: FileStamp(size: UInt64(data.count), modifiedSeconds: 0, modifiedNanoseconds: 0, device: 0, inode: 0, permissions: 0o644),
                replace: false, workspace: workspace.path)
            members.append((spec, PieceBlock(path: piece, crc: CRC32.checksum(data), rawLength: data.count, length: UInt64(member.count),
                                             item: 5, attempt: 9, position: file)))
        }
        // The worker renamed f1 before the writer got to it; f3's piece is simply gone.
        #expect(rename(members[1].piece.path.display, members[1].spec.outputPath.display) == 0)
        #expect(unlink(members[3].piece.path.display) == 0)

        let first = await writer.handle(.takeOver(members))
        let done = first.compactMap { try? $0.get() }
        #expect(done.filter(\.finished).map(\.key.file) == [1], "the renamed one is done at once")
        #expect(Set(done.filter { !$0.finished && $0.sealed }.map(\.key.file)) == [0, 2], "the others are adopted")
        let failures = first.compactMap { if case .failure(let failure) = $0 { failure } else { nil } }
        #expect(failures.map(\.key.file) == [3])

        // Now the worker renames f2 while it waits for the flush: the writer's rename finds it in place.
        #expect(rename(members[2].piece.path.display, members[2].spec.outputPath.display) == 0)
        let flushed = try await writer.handle(.flush).map { try $0.get() }
        #expect(Set(flushed.filter(\.finished).map(\.key.file)) == [0, 2])

        for file in 0..<3 {
            let output = try Data(contentsOf: URL(fileURLWithPath: members[file].spec.outputPath.display))
            #expect(try GzipDecoder.decompress(Array(output)) == contents[file], "f\(file).gz")
        }
        #expect(!FileManager.default.fileExists(atPath: members[3].spec.outputPath.display))
    }
}
