/// The `stored` engine: no compression, the block framed as `StoredBlocks`. The dictionary is
/// not needed (stored blocks reference nothing), and the output's length is known in advance.
final class StoredEncoder: BlockEncoder {
    func encode(_ block: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, isLast: Bool,
                into output: inout [UInt8]) throws -> Int {
        let length = StoredBlocks.encodedLength(rawLength: block.count, isLast: isLast)
        if output.count < length { output = [UInt8](repeating: 0, count: length) }
        output.withUnsafeMutableBytes { out in
            var at = 0
            for (range, header) in StoredBlocks.segments(rawLength: block.count, isLast: isLast) {
                for byte in header {
                    out[at] = byte
                    at += 1
                }
                guard let source = block.baseAddress, let target = out.baseAddress, !range.isEmpty else { continue }
                (target + at).copyMemory(from: source + range.lowerBound, byteCount: range.count)
                at += range.count
            }
        }
        return length
    }
}
