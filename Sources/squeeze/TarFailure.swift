/// `tar` refused or failed to extract an archive; its first line of complaint.
struct TarFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
