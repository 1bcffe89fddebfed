/// Why an `--http` address was refused.
public struct HTTPAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line for the user.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
