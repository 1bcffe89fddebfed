/// How the planner cuts one multi-block file into consecutive items: `headBlocks` blocks in
/// items of `wide` blocks, then the rest in items of `span`, the last possibly shorter. Kept
/// per open file so that a written block maps back to its item without a table per block.
struct ItemShape: Sendable, Equatable {
    /// Blocks in the file.
    let blockCount: Int
    /// Blocks per item at the head.
    let wide: Int
    /// Blocks planned in wide items: a whole number of them.
    let headBlocks: Int
    /// Blocks per item after the head.
    let span: Int

    /// One item per block: a single-block file, or any file before it is planned.
    static let single = ItemShape(blockCount: 1, wide: 1, headBlocks: 0, span: 1)

    /// The items in order, as ranges of block indexes.
    var ranges: [ClosedRange<Int>] {
        var ranges: [ClosedRange<Int>] = []
        for first in stride(from: 0, to: headBlocks, by: wide) { ranges.append(first...(first + wide - 1)) }
        for first in stride(from: headBlocks, to: blockCount, by: span) { ranges.append(first...(min(first + span, blockCount) - 1)) }
        return ranges
    }

    /// The position among the file's items of the item holding block `index`.
    func item(of index: Int) -> Int {
        index < headBlocks ? index / wide : headBlocks / wide + (index - headBlocks) / span
    }
}
