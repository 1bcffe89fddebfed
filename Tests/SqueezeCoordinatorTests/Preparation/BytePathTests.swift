import SqueezeIO
import Testing

@Suite("Byte paths")
struct BytePathTests {
    @Test("appending puts one slash between two non-empty sides, none after an empty path or a trailing slash; a suffix goes last, even after an empty relative path")
    func appending() {
        let gz = Array(".gz".utf8)
        #expect(BytePath("out").appending(BytePath("a/b")) == BytePath("out/a/b"))
        #expect(BytePath("out/").appending(BytePath("a")) == BytePath("out/a"))
        #expect(BytePath("").appending(BytePath("a")) == BytePath("a"))
        #expect(BytePath("out").appending(BytePath("")) == BytePath("out"))
        #expect(BytePath("out").appending(Array("".utf8)) == BytePath("out/"))
        #expect(BytePath("out").appending(BytePath("a/b"), suffix: gz) == BytePath("out/a/b.gz"))
        #expect(BytePath("out/").appending(BytePath("a"), suffix: gz) == BytePath("out/a.gz"))
        #expect(BytePath("").appending(BytePath("a"), suffix: gz) == BytePath("a.gz"))
        #expect(BytePath("out/f").appending(BytePath(""), suffix: gz) == BytePath("out/f.gz"))
        #expect(BytePath(bytes: [0xFF, 0x2F]).appending(BytePath(bytes: [0x00, 0xC3]), suffix: gz) == BytePath(bytes: [0xFF, 0x2F, 0x00, 0xC3] + gz))
    }
}
