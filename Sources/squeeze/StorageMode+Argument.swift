import ArgumentParser
import SqueezeProtocol

/// `--storage auto|shared|remote`.
extension StorageMode: ExpressibleByArgument {}
