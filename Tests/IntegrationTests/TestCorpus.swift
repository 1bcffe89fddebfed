import Foundation

/// Writes big test folders quickly: each file is a rotation of one shared buffer of text and
/// random bytes, prefixed with its own name, so files differ but cost only a memcpy to make.
enum TestCorpus {
    static func make(at folder: String, files: Int, bytesPerFile: Int, seed: UInt64 = 7) throws {
        var data = TestData(seed: seed)
        let base = Data(data.text(1 << 20) + data.random(256 << 10))
        for index in 0..<files {
            let path = "\(folder)/part-\(index / 10)/file-\(index).dat"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            var written = 0
            var offset = (index * 7919) % base.count
            let header = Data("file \(index)\n".utf8)
            try handle.write(contentsOf: header.prefix(bytesPerFile))
            written += min(header.count, bytesPerFile)
            while written < bytesPerFile {
                let count = min(bytesPerFile - written, base.count - offset)
                try handle.write(contentsOf: base[offset..<(offset + count)])
                written += count
                offset = 0
            }
        }
    }
}
