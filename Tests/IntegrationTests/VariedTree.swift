import Foundation
import Glibc
import Testing

/// A folder with the awkward cases: block and window edges, incompressible and all-zero data,
/// empty files, odd names, a deep tree, a symlink and a FIFO (made by `make`, under `src`).
enum VariedTree {
    static func make(_ tree: TestTree) throws {
        var data = TestData(seed: 42)
        let block = 64 * 1024
        for size in [0, 1, 32767, 32768, 32769, block - 1, block, block + 1, 2 * block, 5 * block + 7] {
            try tree.write("src/sizes/text-\(size)", data.text(size))
            try tree.write("src/sizes/random-\(size)", data.random(size))
        }
        try tree.write("src/zeros.bin", [UInt8](repeating: 0, count: 700_000))
        try tree.write("src/mixed/big.txt", data.text(1_500_000))
        try tree.write("src/name with spaces.txt", data.text(5000))
        try tree.write("src/line\nbreak.txt", data.text(300))
        try tree.write("src/-leading-dash", data.text(100))
        try tree.writeRaw(folder: "src/raw", name: [0x66, 0xff, 0xfe, 0x2e, 0x74], data.text(2000))
        var deep = "src"
        for level in 0..<40 { deep += "/d\(level)" }
        try tree.write(deep + "/deep.txt", data.text(1000))
        try FileManager.default.createSymbolicLink(atPath: tree.path("src/link-to-big"), withDestinationPath: tree.path("src/mixed/big.txt"))
        #expect(mkfifo(tree.path("src/a-fifo"), 0o644) == 0)
    }
}
