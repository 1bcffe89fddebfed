import Foundation
import Glibc
import Testing

/// A folder of 200,000 small files through `squeeze compress`: the scan streams into
/// dispatch, memory stays bounded, every output is right, and Ctrl-C works during the scan.
@Suite("many small files", .serialized)
struct ManyFilesTests {
    static let count = 200_000
    static let perFolder = 1000

    @Test("200,000 small files: Ctrl-C during the scan cancels; a full run publishes every one, right, within 200 MiB")
    func twoHundredThousand() throws {
        let tree = try TestTree(preferringMemory: true)
        let started = Date()
        try Self.makeTree(at: tree.path("src"))
        let made = Date().timeIntervalSince(started)

        // The scan pauses at 100,000 open files, so after the first progress event that says
        // it is still scanning, an interrupt is sure to land while files are being found.
        let interrupted = try BackgroundProcess(
            "interrupted", arguments: ["compress", tree.path("src"), "-o", tree.path("cut"), "--json"], in: tree.root)
        try #require(interrupted.waitForOutput(timeout: 120) { output in
            JobEvents.parse(output).contains { $0["event"] as? String == "progress" && $0["scanning"] as? Bool == true }
        }, "\(interrupted.stderr)")
        let signalled = Date()
        interrupted.signal(SIGINT)
        #expect(interrupted.wait(timeout: 60) == 1, "\(interrupted.stderr)")
        #expect(Date().timeIntervalSince(signalled) < 20, "the interrupt waited for the scan")
        #expect(JobEvents.finished(interrupted.stdout)?["state"] as? String == "cancelled")
        #expect(TreeCheck.temporaries(under: tree.path("cut")).isEmpty)
        let published = try FileManager.default.subpathsOfDirectory(atPath: tree.path("cut")).filter { $0.hasSuffix(".gz") }.count
        #expect(published < Self.count, "the interrupt came after the job had finished")

        let full = try BackgroundProcess(
            "full", arguments: ["compress", tree.path("src"), "-o", tree.path("out"), "--json"], in: tree.root)
        let (status, peakKiB) = full.waitMeasuringPeak(timeout: 900)
        #expect(status == 0, "\(full.stderr.suffix(2000))")
        let events = JobEvents.parse(full.stdout)
        let start = try #require(events.first { $0["event"] as? String == "started" })
        #expect(start["scanning"] as? Bool == true, "the job waited for the whole scan before it started")
        #expect((start["files"] as? Int ?? 0) < Self.count)
        let finished = try #require(events.last)
        #expect(finished["state"] as? String == "completed")
        #expect(finished["filesCompressed"] as? Int == Self.count)
        // Thread Sanitizer's shadow memory multiplies a process's footprint (`make tsan` sets
        // TSAN_OPTIONS): the bound is checked on the real build only.
        let sanitized = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil
        #expect(peakKiB > 0 && (sanitized || peakKiB < 200 << 10), "peak RSS \(peakKiB) KiB")
        try Self.checkOutputs(source: tree.path("src"), destination: tree.path("out"))
        print("many files: \(Self.count) made in \(String(format: "%.1f", made)) s, peak RSS \(peakKiB >> 10) MiB")
    }

    /// `perFolder` files to a folder, 0 to about 3 KB of text each.
    static func makeTree(at root: String) throws {
        var data = TestData(seed: 200_000)
        let text = data.text(1 << 20)
        for index in 0..<count {
            let folder = root + "/d\(index / perFolder)"
            if index % perFolder == 0 {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            let size = (index &* 7919) % 3000
            let start = (index &* 104_729) % (text.count - size)
            let fd = open(folder + "/f\(index).txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(fd) }
            let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + start, size) }
            guard written == size else { throw POSIXError(.EIO) }
        }
    }

    /// One `.gz` per file, no temporary, and every byte right: the outputs in the sources'
    /// order, decompressed as one multi-member stream, equal the sources concatenated.
    static func checkOutputs(source: String, destination: String) throws {
        let script = #"""
        set -euo pipefail
        cd "$1"
        find . -type f -print0 | sort -z > "$3/list"
        n=$(tr -cd '\0' < "$3/list" | wc -c)
        outs=$(find "$2" -type f -name '*.gz' | wc -l)
        [ "$outs" -eq "$n" ] || { echo "expected $n outputs, found $outs"; exit 1; }
        left=$(find "$2" -name '.squeeze-*' | wc -l)
        [ "$left" -eq 0 ] || { echo "$left temporaries or workspaces left"; exit 1; }
        want=$(xargs -0 cat < "$3/list" | sha256sum)
        got=$(sed -z 's/$/.gz/' "$3/list" | (cd "$2" && xargs -0 cat) | gzip -dc | sha256sum)
        [ "$want" = "$got" ] || { echo "contents differ"; exit 1; }
        echo "$n"
        """#
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-many-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, "check", source, destination, scratch.path], timeout: 600)
        #expect(outcome.status == 0, "\(outcome.stdout) \(outcome.stderr)")
        #expect(Int(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == count)
    }
}
