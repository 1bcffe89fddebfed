/// A file whose output could not be written.
struct WriteFailure: Error, Sendable {
    /// Which file.
    var key: FileKey
    /// The one-line reason.
    var reason: String
    /// The journal could not record the file: the job cannot go on (what it publishes next
    /// could not be resumed), so it fails as a whole.
    var journal = false
}
