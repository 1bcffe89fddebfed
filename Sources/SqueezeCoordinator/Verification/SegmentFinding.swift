/// What the coordinator's own reading of a stitched segment found.
enum SegmentFinding: Sendable, Equatable {
    /// The range has the CRC-32 expected: the stitch is right.
    case matches
    /// The range is not what the reported CRCs make, but it is exactly the header, the piece
    /// files as they are now, and the trailer: the stitch is right, and the pieces at these
    /// positions (in the segment) do not have the CRC their checks reported.
    case matchesPieces(misreported: [Int])
    /// The range differs from the pieces it was made from: the stitcher's fault.
    case differs(String)
}
