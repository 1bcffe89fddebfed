import CZeroMQ

/// libzmq itself, which the binary loads on first use rather than at start (`CZeroMQ`).
public enum ZMQLibrary {
    /// Loads libzmq now, if it is not loaded yet, so a command can say at once that it is
    /// missing rather than misread a failed call.
    /// - Throws: `ZMQError` saying why it could not be loaded.
    public static func load() throws(ZMQError) {
        guard squeeze_zmq_load() == 1 else { throw ZMQError.last("loading libzmq") }
    }
}
