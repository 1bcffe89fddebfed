import SqueezeIO

/// What `squeeze test` found in one file: good (with its size), or bad and why.
enum GzipTestOutcome: Sendable {
    case good(UInt64)
    case failure(BytePath, String)
}
