import SqueezeGzip
import SqueezeProtocol

/// One block of an accepted answer, as the result check needs it.
enum CheckedBlock: Sendable {
    /// Bytes that came in a `result` from a remote worker, with what the coordinator read for
    /// it (nil when nothing was recorded: the claim alone is checked then).
    case received(ResultBlock, source: SourceBlock?, isLast: Bool)
    /// A piece or placed block a shared-storage worker wrote.
    case written(WrittenBlock)
    /// Nothing to check: the worker could not read its source, and its file fails.
    case skipped
}
