/// A file whose output could not be written.
struct WriteFailure: Error, Sendable {
    /// Which file.
    var key: FileKey
    /// The one-line reason.
    var reason: String
}
