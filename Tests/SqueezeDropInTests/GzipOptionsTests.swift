import SqueezeDropIn
import SqueezeIO
import Testing

struct GzipOptionsTests {
    private static func parse(_ words: String...) throws(GzipUsageError) -> GzipOptions {
        try GzipOptions.parse(words.map { Array($0.utf8) })
    }

    @Test("no arguments: compress stdin to stdout at level 6")
    func defaults() throws {
        let options = try Self.parse()
        #expect(options == GzipOptions())
        #expect(options.mode == .compress && options.files.isEmpty && options.level == 6 && !options.keep)
    }

    @Test("clustered flags with digits, as tar -I and scripts write them")
    func clusters() throws {
        let options = try Self.parse("-dc9k", "a.gz", "-", "-fr")
        #expect(options.mode == .decompress)
        #expect(options.toStandardOutput && options.keep && options.force && options.recursive)
        #expect(options.level == 9)
        #expect(options.files == [BytePath("a.gz"), BytePath("-")])
    }

    @Test("values attached or apart, long options with = or apart")
    func values() throws {
        #expect(try Self.parse("-p4").threads == 4)
        #expect(try Self.parse("-p", "4").threads == 4)
        #expect(try Self.parse("-kp2").threads == 2)
        #expect(try Self.parse("--processes=3").threads == 3)
        #expect(try Self.parse("--processes", "3", "x").files == [BytePath("x")])
        #expect(try Self.parse("-b", "128").blockKiB == 128)
        #expect(try Self.parse("-S", ".z").suffix == Array(".z".utf8))
        #expect(try Self.parse("--suffix=.zz").suffix == Array(".zz".utf8))
        #expect(try Self.parse("--fast").level == 1)
        #expect(try Self.parse("-9", "--best", "-3").level == 3)
        #expect(try Self.parse("--decompress", "--stdout").mode == .decompress)
        #expect(try Self.parse("-t").mode == .test)
        #expect(try Self.parse("-l").mode == .list)
        #expect(try Self.parse("-n").storeName == false)
    }

    @Test("-- ends the options: a file named -d")
    func endOfOptions() throws {
        let options = try Self.parse("-k", "--", "-d", "--x")
        #expect(options.mode == .compress)
        #expect(options.files == [BytePath("-d"), BytePath("--x")])
    }

    @Test("names that are not UTF-8 are kept byte for byte")
    func rawNames() throws {
        let name: [UInt8] = [0x66, 0xff, 0x0a, 0x67]
        #expect(try GzipOptions.parse([name]).files == [BytePath(bytes: name)])
    }

    @Test("unknown options, missing and out-of-range values are usage errors",
          arguments: [["-x"], ["-p"], ["-p", "0"], ["-p", "99999999999999999999"], ["-p", "-3"], ["-b", "1"],
                      ["--nope"], ["--keep=yes"], ["-S", ""], ["-S", "a/b"], ["--processes"]])
    func refused(words: [String]) {
        #expect(throws: GzipUsageError.self) { try GzipOptions.parse(words.map { Array($0.utf8) }) }
    }
}
