import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// A batch's answer the coordinator checks itself (no verifier of another principal, an
/// audit no third principal can do, a verifier that said bad, could not read or left). The
/// blocks to check are spelled out on the checking thread, not on the core, so the batch
/// stays a batch unless the check finds a defect.
struct BatchLocalCheck: Sendable {
    /// The batch.
    var item: ItemKey
    /// The worker whose answer it is, and the attempt its pieces carry.
    var worker: PeerID
    var attempt: AttemptID
    /// The answer: a piece per file, in position order.
    var pieces: [PieceReport]
    /// The batch's files and where they and the pieces are.
    var files: [PlannedFile]
    var sourceRoot: BytePath
    var workspace: BytePath
    /// The level the members' headers name.
    var headerLevel: Int
    /// How the batch cut its files of several blocks; nil when all are one block.
    var memberBlocks: MemberBlocks?
    /// Whose word came before this check (an audit's verifier, a contesting verifier).
    var verdict: VerifierVerdict

    /// Each file's piece as a whole member to decode against its source.
    func checks() -> [CheckedBlock] {
        zip(files, pieces).enumerated().map { position, entry in
            let (file, piece) = entry
            return .written(WrittenBlock(
                path: JobWorkspace.piecePath(in: workspace, item: item.item.value, attempt: attempt.value, position: position),
                offset: 0, length: piece.pieceLength, source: sourceRoot.appending(file.relativePath), stamp: file.stamp,
                sourceRange: 0..<file.stamp.size, dictionaryLength: 0,
                claim: BlockClaim(crc: piece.crc, rawLength: piece.rawLength, isLast: true),
                header: file.batchFile.memberHeader(level: headerLevel, blocks: memberBlocks).encoded()))
        }
    }
}
