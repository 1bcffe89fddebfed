import Foundation
import Glibc
import SqueezeIO
import Testing

@Suite("Direct reads of sources")
struct DirectReadTests {
    @Test("only the whole pages of a big read that starts aligned in the file and in memory go direct")
    func span() {
        let page = DirectReadSpan.alignment
        let big = DirectReadSpan.minimumBytes
        #expect(DirectReadSpan(fileOffset: 0, count: big, address: 0x10000).directBytes == big)
        #expect(DirectReadSpan(fileOffset: UInt64(page) * 3, count: big + 1_234, address: 0x10000).directBytes == big)
        #expect(DirectReadSpan(fileOffset: 512, count: big, address: 0x10000).directBytes == 0, "unaligned in the file")
        #expect(DirectReadSpan(fileOffset: 0, count: big, address: 0x10008).directBytes == 0, "unaligned in memory")
        #expect(DirectReadSpan(fileOffset: 0, count: big - 1, address: 0x10000).directBytes == 0, "too small to be worth it")
        #expect(DirectReadSpan(fileOffset: 0, count: 3 * page + 5, address: 0, minimum: 0).directBytes == 3 * page)
        #expect(DirectReadSpan(fileOffset: 0, count: page - 1, address: 0, minimum: 0).directBytes == 0, "less than a page")
    }

    @Test("a direct read gives the bytes a buffered one does, with a partial last page, and leaves the page cache alone")
    func directRead() throws {
        let folder = try ScratchFolder.make("direct")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/source.bin"
        var generator = SystemRandomNumberGenerator()
        let page = DirectReadSpan.alignment
        let bytes = (0..<(DirectReadSpan.minimumBytes * 3 + 1_234)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Written back, then dropped: what is cached after the read is what the read cached.
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        #expect(fsync(fd) == 0)
        #expect(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
        close(fd)
        let stamp = try #require(try DirectoryScanner.scan(root: BytePath(folder)).files.first?.stamp)
        let range = UInt64(page)..<UInt64(bytes.count)
        let count = bytes.count - page
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count + 1, alignment: page)
        defer { buffer.deallocate() }

        let aligned = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
        try SourceReader.read(BytePath(path), expected: stamp, range: range, into: aligned, direct: true)
        #expect(Array(aligned) == Array(bytes[page...]))
        if try !PageCacheProbe.isTmpfs(folder) {
            let resident = try PageCacheProbe.residentPages(of: path, bytes: bytes.count)
            // The whole pages went around the cache; the last, partial one came through it.
            let cached = resident.dropLast().filter { $0 }.count
            #expect(cached == 0, "pages read direct are in the page cache")
            #expect(resident.last == true, "the partial last page is read through the page cache")
        }

        // A buffer that is not page-aligned cannot take a direct read: the same bytes, buffered.
        let unaligned = UnsafeMutableRawBufferPointer(rebasing: buffer[1...count])
        try SourceReader.read(BytePath(path), expected: stamp, range: range, into: unaligned, direct: true)
        #expect(Array(unaligned) == Array(bytes[page...]))
        if try !PageCacheProbe.isTmpfs(folder) {
            let resident = try PageCacheProbe.residentPages(of: path, bytes: bytes.count)
            let uncached = resident.dropFirst().filter { !$0 }.count
            #expect(uncached == 0, "a buffered read caches what it read")
        }
    }

    @Test("a direct read of a file that changed since the scan fails as a buffered one does")
    func changedFile() throws {
        let folder = try ScratchFolder.make("direct")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/source.bin"
        let size = DirectReadSpan.minimumBytes * 2
        try Data(repeating: 7, count: size).write(to: URL(fileURLWithPath: path))
        let stamp = try #require(try DirectoryScanner.scan(root: BytePath(folder)).files.first?.stamp)
        #expect(truncate(path, off_t(size / 2)) == 0)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: DirectReadSpan.alignment)
        defer { buffer.deallocate() }
        #expect { try SourceReader.read(BytePath(path), expected: stamp, range: 0..<UInt64(size), into: buffer, direct: true) } throws: { error in
            "\(error)".contains("shrank")
        }
    }
}
