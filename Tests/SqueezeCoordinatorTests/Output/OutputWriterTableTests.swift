import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// A writer that appends a file's blocks itself (remote workers, a file it joins) gives a
/// member of several blocks the offset table: the header is written first with zero lengths
/// and again at the end with each span's, so the output is byte for byte `GzipMember`'s with
/// the table, which is what the drop-in writes.
@Suite("Output writer: the offset table")
struct OutputWriterTableTests {
    /// `count` bytes of words and noise, the same each time.
    private static func data(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let words = ["gzip ", "member ", "offset ", "table ", "span ", "block "].map { Array($0.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if state >> 60 == 0 {
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            } else {
                bytes += words[Int(state >> 33) % words.count]
            }
        }
        return Array(bytes.prefix(count))
    }

    @Test("blocks in several commands and out of order, at levels 1 (spans of several blocks, restarting unprimed) and 6: the drop-in's bytes, a table the parallel decoder uses",
          arguments: [1, 6])
    func theDropInsBytes(level: Int) async throws {
        let folder = try WriterFolder("squeeze-writer-table")
        defer { folder.cleanUp() }
        let (root, workspace, pool) = (folder.root, folder.workspace, folder.pool)
        var writer = OutputWriter(pool: pool)

        // 16 KiB blocks: level 1's 4 MiB spans are 256 blocks, so 600 blocks make three spans.
        let blockSize = 16 << 10
        let source = Self.data(600 * blockSize - 1000)
        let setting = try LevelTable.setting(forLevel: level)
        let layout = BlockLayout(fileSize: UInt64(source.count), blockSize: blockSize)
        let perSpan = try #require(GzipOffsetTable.blocksPerSpan(for: layout, engine: setting.engine))
        #expect(perSpan == (level == 1 ? 256 : 1))
        var header = GzipHeader(fileName: Array("f".utf8), modificationTime: 1_700_000_000, level: level)
        let expected = try GzipMember.compress(source, blockSize: blockSize, setting: setting, header: header, offsetTable: true)
        header.offsetTable = .placeholder(for: layout, blocksPerSpan: perSpan)

        // What the workers send: each block with the coordinator's dictionary (none where a span starts).
        let compressor = try BlockCompressor(setting: setting)
        let blocks = try source.withUnsafeBytes { file in
            try (0..<layout.count).map { index -> ResultBlock in
                let range = layout.range(of: index)
                let unprimed = !setting.engine.usesDictionary || index % perSpan == 0
                let dictionary = unprimed ? range.lowerBound..<range.lowerBound : layout.dictionaryRange(of: index)
                let block = try compressor.compress(
                    UnsafeRawBufferPointer(rebasing: file[Int(range.lowerBound)..<Int(range.upperBound)]),
                    dictionary: UnsafeRawBufferPointer(rebasing: file[Int(dictionary.lowerBound)..<Int(dictionary.upperBound)]),
                    isLast: layout.isLast(index))
                return ResultBlock(crc: block.crc, rawLength: block.rawLength, bytes: ZMQFrame(block.bytes))
            }
        }
        let spec = OutputSpec(
            key: FileKey(job: 1, file: 0), outputPath: BytePath("\(root)/out/f.gz"), relativePath: Array("f".utf8),
            header: header, spanBlocks: perSpan, blockCount: layout.count,
            stamp: FileStamp(size: UInt64(source.count), modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 0, device: 0, inode: 0, permissions: 0o644),
            replace: false, workspace: workspace.path)
        // Three commands: the second half reversed, then the first half, the last block alone at the end.
        let order = Array((layout.count / 2..<layout.count - 1).reversed()) + Array(0..<layout.count / 2) + [layout.count - 1]
        for chunk in [order[..<100], order[100..<(order.count - 1)], order[(order.count - 1)...]] {
            let done = try await writer.handle(.blocks([(spec, chunk.map { ($0, blocks[$0]) })])).map { try $0.get() }
            #expect(done.allSatisfy { $0.key == spec.key })
        }
        let published = try await writer.handle(.flush).map { try $0.get() }
        #expect(published.contains { $0.finished && $0.key == spec.key })

        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(root)/out/f.gz")))
        #expect(written.count == expected.count)
        #expect(written == expected, "the writer's member is not the drop-in's")
        let dataStart = UInt64(header.encoded().count)
        guard case .found(let points) = RestartPoints.read(header: Array(written.prefix(Int(dataStart))), dataStart: dataStart,
                                                           fileSize: UInt64(written.count)) else {
            Issue.record("no offset table found in the writer's member")
            return
        }
        #expect(points.spanBytes == UInt64(blockSize * perSpan))
        #expect(points.offsets.count == (layout.count + perSpan - 1) / perSpan)

        // The parallel decoder cuts the member at the table's points and finds nothing wrong with it.
        let decoder = ParallelGzipDecoder(threads: 3, minimumBytes: 0)
        var back: [UInt8] = []
        let tally = try decoder.decompress(size: UInt64(written.count), read: { offset, buffer in
            let start = Int(min(offset, UInt64(written.count)))
            let part = written[start..<min(written.count, start + buffer.count)]
            buffer.copyBytes(from: part)
            return part.count
        }, into: { back.append(contentsOf: $0) })
        #expect(tally.usedTable && tally.tableDefect == nil, "\(tally)")
        #expect(back == source)
    }
}
