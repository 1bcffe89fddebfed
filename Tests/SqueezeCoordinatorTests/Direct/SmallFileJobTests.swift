import Glibc
import SqueezeProtocol
import Testing

@testable import SqueezeCoordinator

@Suite("SmallFileJob: which jobs run without the cluster")
struct SmallFileJobTests {
    private static func file(size: Int, type: mode_t = S_IFREG) -> stat {
        var info = stat()
        info.st_mode = type | 0o644
        info.st_size = size
        return info
    }

    private static func request(_ change: (inout JobRequest) -> Void = { _ in }) -> JobRequest {
        var request = JobRequest(source: "data.txt", destination: nil, level: 6, force: false)
        change(&request)
        return request
    }

    @Test("one regular file up to the limit, with settings the cluster accepts")
    func admitted() {
        for size in [0, 1, 1_000_000, Int(SmallFileJob.maximumBytes)] {
            #expect(SmallFileJob.admits(Self.request(), defaultBlockSize: 512 << 10, source: Self.file(size: size)), "\(size) bytes")
        }
        let settings = Self.request {
            $0.level = 0
            $0.engine = "isal"
            $0.blockSize = 4096
            $0.force = true
            $0.fileEvents = true
        }
        #expect(SmallFileJob.admits(settings, defaultBlockSize: 512 << 10, source: Self.file(size: 100)))
    }

    @Test("the cluster runs the rest, and reports what is wrong with it")
    func refused() {
        let small = Self.file(size: 1000)
        let cases: [(String, JobRequest, stat?)] = [
            ("a file one byte over the limit", Self.request(), Self.file(size: Int(SmallFileJob.maximumBytes) + 1)),
            ("a folder", Self.request(), Self.file(size: 4096, type: S_IFDIR)),
            ("a FIFO", Self.request(), Self.file(size: 0, type: S_IFIFO)),
            ("a source that cannot be read", Self.request(), nil),
            ("an archive", Self.request { $0.tar = true }, small),
            ("a traced job", Self.request { $0.trace = true }, small),
            ("an unknown engine", Self.request { $0.engine = "zstd" }, small),
            ("a level out of range", Self.request { $0.level = 10 }, small),
            ("a block too small", Self.request { $0.blockSize = 4095 }, small),
            ("a block too big", Self.request { $0.blockSize = ProtocolLimits.maxBlockSize + 1 }, small),
            ("a NUL in the destination", Self.request { $0.destination = "out\0put" }, small),
        ]
        for (name, request, source) in cases {
            #expect(!SmallFileJob.admits(request, defaultBlockSize: 512 << 10, source: source), "\(name)")
        }
        // The default block size counts when the request names none.
        #expect(!SmallFileJob.admits(Self.request(), defaultBlockSize: 1024, source: small))
    }
}
