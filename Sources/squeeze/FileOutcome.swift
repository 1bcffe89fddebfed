import SqueezeIO

/// What `squeeze test` or `squeeze decompress` did with one file: good (with the bytes it read
/// and wrote, or held), or failed and why.
enum FileOutcome: Sendable {
    case good(read: UInt64, wrote: UInt64)
    case failure(BytePath, String)
}
