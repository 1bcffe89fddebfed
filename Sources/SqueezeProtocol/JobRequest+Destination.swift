extension JobRequest {
    /// Where the outputs go, as the request names it: `destination`, or `SRC.squeezed` beside the
    /// source (`SRC.tar.gz` for an archive). Trailing slashes of the source (`dir/`, as shells complete it) are dropped first,
    /// so the default never lands inside the source.
    public var destinationPath: String {
        if let destination { return destination }
        var source = Substring(self.source)
        while source.count > 1, source.hasSuffix("/") { source = source.dropLast() }
        return source + (isArchive ? ".tar.gz" : ".squeezed")
    }

    /// Whether the request asks for one `.tar.gz` of the folder.
    public var isArchive: Bool { tar == true }
}
