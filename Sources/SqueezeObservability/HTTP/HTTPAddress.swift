/// Where `--http` listens: `PORT` (loopback), `HOST:PORT`, or `[IPv6]:PORT`. Loopback unless
/// a host says otherwise: the pages and metrics have no authentication.
public struct HTTPAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address to bind (a name or a literal, without brackets).
    public var host: String
    /// The port; 0 lets the kernel choose (the bound port is printed).
    public var port: Int

    /// Parses `text`, or throws a one-line reason.
    public init(parsing text: String) throws(HTTPAddressError) {
        var hostPart: Substring
        let portPart: Substring
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].first == ":" else {
                throw HTTPAddressError("\(text): expected [ADDRESS]:PORT")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard !hostPart.contains(":") else { throw HTTPAddressError("\(text): put an IPv6 address in brackets, [::1]:PORT") }
        } else {
            hostPart = ""
            portPart = Substring(text)
        }
        if hostPart.isEmpty { hostPart = "127.0.0.1" }
        guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy(\.isASCII), let port = Int(portPart), (0...65_535).contains(port) else {
            throw HTTPAddressError("\(text): the port must be a number from 0 to 65535")
        }
        guard hostPart.count <= 255, !hostPart.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw HTTPAddressError("\(text): not a host name or address")
        }
        host = String(hostPart)
        self.port = port
    }

    /// True for an address only this machine reaches.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `host:port`, with brackets around an IPv6 address.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
