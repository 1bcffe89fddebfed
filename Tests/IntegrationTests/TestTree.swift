import Foundation
import Glibc

/// A temporary folder, removed when the test ends.
final class TestTree {
    let root: URL

    /// A folder under the temporary directory; with `preferringMemory`, under /dev/shm when it
    /// has 4 GiB free (a tree of many files is made and read there in seconds, not minutes).
    init(preferringMemory: Bool = false) throws {
        var base = FileManager.default.temporaryDirectory
        var info = statvfs()
        if preferringMemory, statvfs("/dev/shm", &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_frsize) > 4 << 30 {
            base = URL(fileURLWithPath: "/dev/shm")
        }
        root = base.appendingPathComponent("squeeze-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// Writes `bytes` at `relative` (raw bytes allowed in names via `rawName`).
    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// Writes a file whose name is raw bytes (possibly not UTF-8) inside `folder`.
    func writeRaw(folder: String, name: [UInt8], _ bytes: [UInt8]) throws {
        let directory = path(folder)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let full = Array(directory.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = full.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) } }
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}

/// Deterministic test data.
struct TestData {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func random(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    mutating func text(_ count: Int) -> [UInt8] {
        let words = ["squeeze", "gzip", "block", "worker", "coordinator", "deflate", "the", "of", "and", "zeromq\n"]
        var out: [UInt8] = []
        out.reserveCapacity(count + 16)
        while out.count < count {
            out += Array(words[Int(next() % UInt64(words.count))].utf8) + [0x20]
        }
        return Array(out.prefix(count))
    }
}
