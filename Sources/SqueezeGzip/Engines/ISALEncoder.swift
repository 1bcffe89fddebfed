import CISAL

/// ISA-L's igzip deflate at levels 0...3: raw deflate, the dictionary through
/// `isal_deflate_set_dict`, non-final blocks ended with `SYNC_FLUSH`, the last with
/// `end_of_stream`. Each level's buffer has ISA-L's default size, which the output depends on.
final class ISALEncoder: BlockEncoder {
    private let stream: UnsafeMutablePointer<squeeze_isal_stream>

    /// A stream at `level` (0...3).
    init(level: Int) throws {
        guard CompressionEngine.isal.levels.contains(level), let stream = squeeze_isal_create(Int32(level)) else {
            throw EngineError(engine: .isal, operation: "create stream",
                              message: "cannot create a stream at level \(level)")
        }
        self.stream = stream
    }

    deinit {
        squeeze_isal_destroy(stream)
    }

    func encode(_ block: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, isLast: Bool,
                into output: inout [UInt8]) throws -> Int {
        guard block.count <= Int(UInt32.max), dictionary.count <= Int(UInt32.max) else {
            throw EngineError(engine: .isal, operation: "isal_deflate", message: "block of \(block.count) bytes is too large")
        }
        let dictionaryBase = dictionary.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let begin = squeeze_isal_begin(stream, dictionaryBase, UInt32(dictionary.count), isLast ? 1 : 0)
        guard begin == COMP_OK else {
            throw EngineError(engine: .isal, operation: "isal_deflate_set_dict", message: "error \(begin)")
        }
        // Room for stored blocks (5 bytes per 64 KiB) and the final or flush block.
        let estimate = block.count + block.count / 64 + 1024
        if output.count < estimate { output = [UInt8](repeating: 0, count: estimate) }

        var dummy: UInt8 = 0
        var consumed = 0
        var produced = 0
        while true {
            var inputLeft: UInt32 = 0
            var outputLeft: UInt32 = 0
            var done: Int32 = 0
            let status = withUnsafeMutablePointer(to: &dummy) { empty in
                output.withUnsafeMutableBytes { out -> Int32 in
                    // ISA-L wants pointers even for no input; `output` is never empty here.
                    let input = (block.baseAddress ?? UnsafeRawPointer(empty)).assumingMemoryBound(to: UInt8.self)
                    let target = (out.baseAddress ?? UnsafeMutableRawPointer(empty)).assumingMemoryBound(to: UInt8.self)
                    let room = UInt32(min(out.count - produced, Int(UInt32.max)))
                    return squeeze_isal_step(
                        stream, input + consumed, UInt32(block.count - consumed), target + produced, room,
                        &inputLeft, &outputLeft, &done)
                }
            }
            guard status == COMP_OK else {
                throw EngineError(engine: .isal, operation: "isal_deflate", message: "error \(status)")
            }
            let room = min(output.count - produced, Int(UInt32.max))
            let before = (consumed, produced)
            consumed = block.count - Int(inputLeft)
            produced += room - Int(outputLeft)
            if done != 0 { return produced }
            if outputLeft == 0 {
                output.append(contentsOf: repeatElement(0, count: max(output.count / 2, 4096)))
            } else if before == (consumed, produced) {
                throw EngineError(engine: .isal, operation: "isal_deflate", message: "no progress")
            }
        }
    }
}
