import SqueezeIO

/// gzip's naming rules: `FILE` compresses to `FILE.gz` (or the `-S` suffix), and back; `.tgz`
/// stands for `.tar.gz`.
public struct GzipFileNames: Sendable {
    private static let tgz = Array(".tgz".utf8)
    private static let tar = Array(".tar".utf8)

    /// The compressed suffix, `.gz` by default.
    public let suffix: [UInt8]

    /// Rules for `suffix`.
    public init(suffix: [UInt8]) {
        self.suffix = suffix
    }

    /// Whether `path` already looks compressed, so compressing it again is refused.
    public func isCompressed(_ path: BytePath) -> Bool {
        let name = path.lastComponent
        return [suffix, Self.tgz].contains { name.count > $0.count && name.suffix($0.count).elementsEqual($0) }
    }

    /// Where `path` compresses to.
    public func compressed(_ path: BytePath) -> BytePath {
        BytePath(bytes: path.bytes + suffix)
    }

    /// Where `path` decompresses to, or nil when its name has no known suffix.
    public func decompressed(_ path: BytePath) -> BytePath? {
        let name = path.lastComponent
        guard name.count == path.bytes.count || path.bytes.last != UInt8(ascii: "/") else { return nil }
        if name.count > suffix.count, name.suffix(suffix.count).elementsEqual(suffix) {
            return BytePath(bytes: Array(path.bytes.dropLast(suffix.count)))
        }
        if name.count > Self.tgz.count, name.suffix(Self.tgz.count).elementsEqual(Self.tgz) {
            return BytePath(bytes: Array(path.bytes.dropLast(Self.tgz.count)) + Self.tar)
        }
        return nil
    }
}
