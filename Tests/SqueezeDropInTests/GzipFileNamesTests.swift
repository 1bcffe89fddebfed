import SqueezeDropIn
import SqueezeIO
import Testing

struct GzipFileNamesTests {
    private let names = GzipFileNames(suffix: Array(".gz".utf8))

    @Test("FILE goes to FILE.gz and back; .tgz to .tar")
    func roundTrip() {
        #expect(names.compressed(BytePath("dir/a.txt")) == BytePath("dir/a.txt.gz"))
        #expect(names.decompressed(BytePath("dir/a.txt.gz")) == BytePath("dir/a.txt"))
        #expect(names.decompressed(BytePath("x.tgz")) == BytePath("x.tar"))
    }

    @Test("a name that is only the suffix, or has none, has no decompressed name")
    func noSuffix() {
        #expect(names.decompressed(BytePath("a.txt")) == nil)
        #expect(names.decompressed(BytePath("dir/.gz")) == nil)
        #expect(names.decompressed(BytePath(".gz")) == nil)
        #expect(names.decompressed(BytePath("a.gz/")) == nil)
    }

    @Test("compressed-looking names are recognised; the suffix is configurable")
    func compressedLooking() {
        #expect(names.isCompressed(BytePath("a.gz")))
        #expect(names.isCompressed(BytePath("a.tgz")))
        #expect(!names.isCompressed(BytePath("a.gzip")))
        #expect(!names.isCompressed(BytePath(".gz")))
        let z = GzipFileNames(suffix: Array(".z".utf8))
        #expect(z.decompressed(BytePath("a.z")) == BytePath("a"))
        #expect(z.compressed(BytePath("a")) == BytePath("a.z"))
    }
}
