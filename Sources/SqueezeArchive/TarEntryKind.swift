/// What an archive entry is, as its header's type flag says.
public enum TarEntryKind: UInt8, Sendable, Equatable {
    /// A regular file: its bytes follow the header.
    case regular = 0x30
    /// A second name for a regular file stored before: `linkTarget` names it.
    case hardLink = 0x31
    /// A symbolic link to `linkTarget`, stored as the link, never followed.
    case symbolicLink = 0x32
    /// A character device.
    case characterDevice = 0x33
    /// A block device.
    case blockDevice = 0x34
    /// A directory; its name ends with `/`.
    case directory = 0x35
    /// A FIFO, stored as a FIFO, never opened.
    case fifo = 0x36

    /// Whether the entry's data follows its header (only a regular file's does).
    public var hasData: Bool { self == .regular }
}
