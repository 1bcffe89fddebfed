import SqueezeGzip
import SqueezeProtocol
import Testing

/// The optional tail of `scan`, `batch` and `verifyBatch` that lets a batch hold whole files of
/// several blocks (`MemberBlocks`): it travels when set, is absent for older peers, and a block
/// size out of range or an engine other than the message's own is refused.
struct MemberBlocksTableTests {
    static let blocks = MemberBlocks(blockSize: 512 << 10, engine: .libdeflate)

    @Test func theTailTravelsWithBatchesChecksAndScans() throws {
        var batch = Fixtures.batch
        batch.memberBlocks = Self.blocks
        var check = Fixtures.batchCheck
        check.memberBlocks = MemberBlocks(blockSize: 64 << 10, engine: .isal)
        var scan = Fixtures.scan
        scan.memberBlocks = Self.blocks
        for message in [WireMessage.batch(batch), .verifyBatch(check), .scan(scan)] {
            #expect(try WireCodec.decode(WireCodec.encodeBytes(message)).message == message)
        }
        for message in [WireMessage.batch(Fixtures.batch), .verifyBatch(Fixtures.batchCheck), .scan(Fixtures.scan)] {
            let frames = WireCodec.encodeBytes(message)
            let withTail: WireMessage = switch message {
            case .batch: .batch(batch)
            case .verifyBatch: .verifyBatch(check)
            default: .scan(scan)
            }
            // Five bytes more than the message without it, and nothing else differs.
            #expect(WireCodec.encodeBytes(withTail)[1].count == frames[1].count + 5)
            #expect(try WireCodec.decode(frames).message == message)
        }
    }

    @Test(arguments: [
        MemberBlocks(blockSize: 4095, engine: .libdeflate), MemberBlocks(blockSize: ProtocolLimits.maxBlockSize + 1, engine: .libdeflate),
        MemberBlocks(blockSize: 0, engine: .libdeflate),
    ])
    func aBlockSizeOutOfRangeIsRefused(blocks: MemberBlocks) {
        var batch = Fixtures.batch
        batch.memberBlocks = blocks
        var check = Fixtures.batchCheck
        check.memberBlocks = blocks
        var scan = Fixtures.scan
        scan.memberBlocks = blocks
        for message in [WireMessage.batch(batch), .verifyBatch(check), .scan(scan)] {
            #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(WireCodec.encodeBytes(message))))
        }
    }

    @Test func anEngineOtherThanTheMessagesIsRefused() {
        // The batch and the scan compress with libdeflate; a cut for zlib would not be their members'.
        let other = MemberBlocks(blockSize: 512 << 10, engine: .zlib)
        var batch = Fixtures.batch
        batch.memberBlocks = other
        var scan = Fixtures.scan
        scan.memberBlocks = other
        for message in [WireMessage.batch(batch), .scan(scan)] {
            #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(WireCodec.encodeBytes(message))))
        }
        // An unknown engine value, anywhere.
        var frames = WireCodec.encodeBytes(.scan(scan))
        frames[1][frames[1].count - 1] = 0xEE
        #expect(ReferenceTableTests.isMalformed(ReferenceTableTests.decodeError(frames)))
    }

    @Test func aFileOfSeveralBlocksGetsAPlaceholderTableAndOthersNone() throws {
        let small = BatchTableTests.file("a/one.log", size: 512 << 10)
        let large = BatchTableTests.file("a/big.log", size: 3 << 20)
        // One block, or no cut: the plain header.
        #expect(small.memberHeader(level: 6, blocks: Self.blocks).encoded() == small.memberHeader(level: 6))
        #expect(large.memberHeader(level: 6, blocks: nil).encoded() == large.memberHeader(level: 6))
        // Six blocks of libdeflate, which restarts at every block: a table of five zero lengths.
        let header = large.memberHeader(level: 6, blocks: Self.blocks)
        #expect(header.offsetTable == GzipOffsetTable(spanBytes: 512 << 10, spanLengths: [0, 0, 0, 0, 0]))
        #expect(header.fileName == Array("big.log".utf8))
        // A primed engine restarts every 4 MiB: a 3 MiB file has no table.
        #expect(large.memberHeader(level: 6, blocks: MemberBlocks(blockSize: 512 << 10, engine: .zlib)).offsetTable == nil)
    }
}
