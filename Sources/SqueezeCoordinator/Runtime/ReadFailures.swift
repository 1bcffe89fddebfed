/// Files of a dispatch that could not be read, with the reason for each.
struct ReadFailures: Error, Sendable {
    /// (file index, one-line reason)
    var files: [(Int, String)]
}
