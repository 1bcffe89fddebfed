import SqueezeIO

/// The check of one stitched segment: the CRC-32 of its range of the output, read by someone
/// other than the worker that stitched it, against what its header, pieces and trailer make.
struct SegmentCheck: Sendable {
    /// The check's id (from the same counter as answers' checks).
    var id: UInt64
    /// The file and the stitch attempt it belongs to: a check of an attempt given up is moot.
    var file: FileKey
    var attempt: AttemptID
    /// Who stitched it: blamed when the bytes differ.
    var stitcher: PeerID
    /// The stitched output and the segment's range of it.
    var path: BytePath
    var range: Range<UInt64>
    /// What the range must hash to.
    var expectedCRC: UInt32
    /// What the segment was made of, read only when the range disagrees: the header (first
    /// segment), the pieces in order, the trailer (last segment).
    var header: [UInt8]
    var pieces: [PieceBlock]
    var trailer: [UInt8]
    /// What a verifier said, when the coordinator checks because of it.
    var verdict = VerifierVerdict.none
}
