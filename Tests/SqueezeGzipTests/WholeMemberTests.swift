import SqueezeGzip
import Testing

/// A worker's whole member of a file of several blocks (`GzipMember.compress(_:blockSize:header:with:)`)
/// is byte for byte the member a stitch of the same blocks makes, and a checker given the
/// header with placeholder lengths (`BlockVerifier.decodeMember`) takes it, and refuses a
/// member whose table, header or spans are not what they must be.
struct WholeMemberTests {
    static let blockSize = 64 << 10
    /// Past one primed span (4 MiB), so zlib and ISA-L members get a table of two spans.
    static let size = (4 << 20) + (300 << 10)

    static func placeholder(_ data: [UInt8], engine: CompressionEngine, name: String = "big.log") -> GzipHeader {
        var header = GzipHeader(fileName: Array(name.utf8), modificationTime: 7, level: 6)
        let layout = BlockLayout(fileSize: UInt64(data.count), blockSize: blockSize)
        if let perSpan = GzipOffsetTable.blocksPerSpan(for: layout, engine: engine) {
            header.offsetTable = .placeholder(for: layout, blocksPerSpan: perSpan)
        }
        return header
    }

    static func decode(_ member: [UInt8], header: [UInt8], rawLength: Int) -> Result<UInt32, BlockDefect> {
        do {
            let verifier = try BlockVerifier()
            return .success(try member.withUnsafeBytes { bytes throws(BlockDefect) in try verifier.decodeMember(bytes, header: header, rawLength: rawLength) })
        } catch let defect as BlockDefect {
            return .failure(defect)
        } catch {
            return .failure(BlockDefect("\(error)"))
        }
    }

    @Test(arguments: [EngineCase.libdeflate6, .zlib6, .isal3, .stored0])
    func aWholeMemberIsTheStitchedMemberAndPassesItsCheck(engine: EngineCase) throws {
        let data = DataKind.text.bytes(count: Self.size, seed: 11)
        let header = Self.placeholder(data, engine: engine.engine)
        let whole = try data.withUnsafeBytes { try GzipMember.compress($0, blockSize: Self.blockSize, header: header.encoded(), with: engine.compressor()) }
        var plain = header
        plain.offsetTable = nil
        let stitched = try GzipMember.compress(data, blockSize: Self.blockSize, setting: engine.setting(), header: plain, offsetTable: true)
        #expect(whole.bytes == stitched)
        #expect(whole.trailer == GzipTrailer(crc: CRC32.checksum(data), inputLength: UInt64(data.count)))
        #expect(header.offsetTable != nil)
        guard case .success(let crc) = Self.decode(whole.bytes, header: header.encoded(), rawLength: data.count) else {
            Issue.record("a good member was refused: \(Self.decode(whole.bytes, header: header.encoded(), rawLength: data.count))")
            return
        }
        #expect(crc == CRC32.checksum(data))
        // One byte more or less of data than planned.
        #expect((try? Self.decode(whole.bytes, header: header.encoded(), rawLength: data.count - 1).get()) == nil)
    }

    @Test(arguments: [EngineCase.libdeflate6, .zlib6])
    func aMemberWhoseTableOrHeaderIsWrongIsRefused(engine: EngineCase) throws {
        let data = DataKind.text.bytes(count: Self.size, seed: 12)
        let header = Self.placeholder(data, engine: engine.engine)
        let expected = header.encoded()
        let good = try data.withUnsafeBytes { try GzipMember.compress($0, blockSize: Self.blockSize, header: expected, with: engine.compressor()) }.bytes
        guard let lengths = GzipOffsetTable.lengthsRange(in: expected), lengths.count >= 4 else {
            Issue.record("no table in \(expected)")
            return
        }
        // A table that points into the middle of a span: the first length one byte longer,
        // the second (or the trailer's side) one shorter, so the sum still fits.
        var shifted = good
        shifted[lengths.lowerBound] &+= 1
        #expect((try? Self.decode(shifted, header: expected, rawLength: data.count).get()) == nil)
        // The same member under another file's name.
        #expect((try? Self.decode(good, header: Self.placeholder(data, engine: engine.engine, name: "other.log").encoded(), rawLength: data.count).get()) == nil)
        // A member without a table where one is due, and a table where none is.
        var plain = header
        plain.offsetTable = nil
        let untabled = try GzipMember.compress(data, blockSize: Self.blockSize, setting: engine.setting(), header: plain, offsetTable: false)
        #expect((try? Self.decode(untabled, header: expected, rawLength: data.count).get()) == nil)
        #expect((try? Self.decode(good, header: plain.encoded(), rawLength: data.count).get()) == nil)
        // The writer refuses a header without the table its member needs.
        #expect(throws: EngineError.self) {
            try data.withUnsafeBytes { try GzipMember.compress($0, blockSize: Self.blockSize, header: plain.encoded(), with: engine.compressor()) }
        }
    }
}
