/// Compresses blocks for one compression slot with one engine setting.
///
/// Not thread-safe: create one per worker slot. The engine's stream is set up once and reset
/// between blocks, and the output buffer is reused, so a block costs no fresh allocation
/// beyond its result; the bytes depend only on the block, its dictionary, the setting and
/// `isLast`, never on what the compressor did before.
public final class BlockCompressor {
    /// The engine and its level.
    public let setting: EngineSetting
    private let encoder: any BlockEncoder
    /// Reused output space, grown to the largest block seen.
    private var scratch: [UInt8] = []

    /// A compressor for `setting`.
    /// - Throws: `ZlibError` or `EngineError` when the engine cannot be set up.
    public init(setting: EngineSetting) throws {
        self.setting = setting
        switch setting.engine {
        case .zlib: encoder = try ZlibEncoder(level: setting.level)
        case .libdeflate: encoder = try LibdeflateEncoder(level: setting.level)
        case .isal: encoder = try ISALEncoder(level: setting.level)
        case .stored: encoder = StoredEncoder()
        }
    }

    /// Compresses one block and computes its CRC-32.
    ///
    /// - Parameters:
    ///   - block: the block's input bytes.
    ///   - dictionary: up to the last 32 KiB of input before this block (empty for the first
    ///     block); if longer, only its last 32 KiB are used. libdeflate does not use it.
    ///   - isLast: ends the deflate stream with a final block instead of a byte-aligned,
    ///     non-final ending (an empty stored block).
    /// - Throws: `ZlibError` or `EngineError` naming the failing call.
    public func compress(_ block: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer,
                         isLast: Bool) throws -> CompressedBlock {
        let window = UnsafeRawBufferPointer(rebasing: dictionary.suffix(BlockLayout.dictionarySize))
        let length = try encoder.encode(block, dictionary: window, isLast: isLast, into: &scratch)
        return CompressedBlock(bytes: Array(scratch[..<length]), crc: CRC32.checksum(block), rawLength: block.count)
    }
}
