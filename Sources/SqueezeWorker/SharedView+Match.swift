import SqueezeIO
import SqueezeProtocol

extension SharedView {
    /// What a worker with this view compares of a source's stamp: never the device (another
    /// host's, or a container's), the inode and nanoseconds only where they agree.
    var match: StampMatch { StampMatch(device: false, inode: inodes, nanoseconds: nanoseconds) }
}
