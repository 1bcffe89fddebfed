/// What the coordinator checks itself, on its verification threads.
enum LocalCheck: Sendable {
    /// An answer's blocks.
    case answer(VerificationRequest)
    /// A batch's pieces, spelled out on the checking thread.
    case batch(BatchLocalCheck)
    /// A stitched segment's bytes.
    case segment(SegmentCheck)
    /// Every published output of a job a caught collusion touched.
    case outputs(OutputRecheck)
    /// A worker's "shared" answer to a storage probe.
    case storage(StorageConfirmation)
}
