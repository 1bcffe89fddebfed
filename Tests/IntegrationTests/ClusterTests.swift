import Foundation
import Glibc
import SqueezeProtocol
import Testing

/// The cluster for real: `squeeze coordinator`, `worker` and `submit` processes over TCP on
/// free loopback ports. Every process is killed when its test ends.
@Suite("cluster over TCP", .serialized)
struct ClusterTests {
    @Test("three workers compress several hundred MiB; every output round-trips")
    func threeWorkersLargeJob() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/big"), files: 40, bytesPerFile: 8 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 3)
        let outcome = try cluster.submitAndWait(["big", "--level", "1"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("completed: 40 files"))
        #expect(try TreeCheck.verify(source: tree.path("data/big"), destination: tree.path("data/big.squeezed")) == 40)
        let status = try cluster.status()
        #expect(status.workers.count == 3)
        #expect(status.workers.allSatisfy { $0.itemsDone > 0 }, "every worker took work: \(status.workers)")
        #expect(status.jobs.map(\.state) == [.completed])
    }

    @Test("jobs go only to workers that have their engine; a job no worker can run is refused")
    func enginesPerWorker() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 6, bytesPerFile: 1 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0)
        try cluster.addWorker(id: "zlib-only", arguments: ["--engines", "zlib"])
        try #require(cluster.waitForWorkers(1))
        #expect(try cluster.status().workers.first?.engines == ["zlib"])

        let refused = try cluster.submitAndWait(["src", "-o", "out-default"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no worker can compress with libdeflate: the workers have zlib"), "\(refused.stderr)")

        let forced = try cluster.submitAndWait(["src", "-o", "out-zlib", "--engine", "zlib"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/out-zlib")) == 6)
        let zlibItems = try #require(try cluster.status().workers.first?.itemsDone)
        #expect(zlibItems > 0)

        try cluster.addWorker(id: "all-engines")
        try #require(cluster.waitForWorkers(2))
        let libdeflate = try cluster.submitAndWait(["src", "-o", "out-default"])
        #expect(libdeflate.status == 0, "\(libdeflate.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/out-default")) == 6)
        let workers = try cluster.status().workers
        #expect(workers.first { $0.workerID == "zlib-only" }?.itemsDone == zlibItems, "the zlib-only worker got libdeflate items: \(workers)")
        #expect((workers.first { $0.workerID == "all-engines" }?.itemsDone ?? 0) > 0)
    }

    @Test("a worker killed with SIGKILL mid-job: its items are requeued and the job completes")
    func workerKilled() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 4 << 20)
        // Files split into items (none whole in a batch): the killed worker holds several, its
        // credit's worth, for the coordinator to requeue.
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 3, coordinatorArguments: ["--whole-file-size", "1M"])
        let submit = try cluster.submit("submit", ["src", "--json"])
        try #require(submit.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.15 })
        try #require(submit.isRunning, "the job ended before the kill")
        cluster.workers[1].signal(SIGKILL)
        #expect(submit.wait(timeout: 300) == 0, "\(submit.stderr)")
        #expect(JobEvents.finished(submit.stdout)?["state"] as? String == "completed")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 24)
        #expect(cluster.waitForWorkers(2))
        #expect(cluster.coordinator.stderr.contains("requeued items"), "\(cluster.coordinator.stderr)")
    }

    @Test("a slow disk slows dispatch: with every byte passing through it, the coordinator stays within its memory bound")
    func slowWriterBoundsMemory() throws {
        let tree = try TestTree()
        // 256 MiB that does not compress: every byte comes back from the workers as big as it
        // went, and waits for a writer that takes 20 ms per 512 KiB block (about 25 MB/s).
        let chunk = try #require(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: 32 << 20))
        for index in 0..<8 { try tree.write("data/src/random-\(index).bin", [UInt8](chunk) + [UInt8(index)]) }
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--test-write-delay", "20ms", "--relay-memory", "64M"])
        try cluster.addWorker(slots: 2, id: "r1", arguments: ["--storage", "remote"])
        try cluster.addWorker(slots: 2, id: "r2", arguments: ["--storage", "remote"])
        try #require(cluster.waitForWorkers(2))
        let before = try #require(Self.residentMiB(cluster.coordinator.pid))
        let submit = try cluster.submit("submit", ["src", "--level", "1", "--json"])
        var peak = before
        _ = Poll.until(timeout: 120, every: 0.05) {
            if let now = Self.residentMiB(cluster.coordinator.pid) { peak = max(peak, now) }
            return !submit.isRunning
        }
        #expect(submit.wait(timeout: 10) == 0, "\(submit.stderr)")
        #expect(JobEvents.finished(submit.stdout)?["bytesRelayed"] as? Int == 8 * (32 << 20) + 8)
        // The relay budget is 64 MiB of dispatched, unwritten input; with the payloads
        // on their way, libzmq's buffers and malloc's kept free memory, it grew by about 115 MiB
        // here. A window that did not wait for the writes grew by 220 MiB (measured by
        // removing it): it buffers most of the job.
        #expect(peak - before < 160, "the coordinator grew from \(before) MiB to \(peak) MiB behind a slow writer")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 8)
    }

    /// The resident set of process `pid` in MiB, from /proc; nil once it is gone.
    private static func residentMiB(_ pid: Int32) -> Int? {
        ProcessStatus.mebibytes("VmRSS", of: pid)
    }

    @Test("a worker stopped with SIGSTOP is declared dead; after SIGCONT its late results are dropped")
    func workerStopped() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 4 << 20)
        // Files split into items (none whole in a batch): the stopped worker holds several, its
        // credit's worth, so its work in flight ends in one of the two ways checked below.
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 3, coordinatorArguments: ["--heartbeat", "500ms", "--whole-file-size", "1M"])
        let victim = cluster.workers[0]
        let submit = try cluster.submit("submit", ["src", "--json"])
        try #require(submit.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.15 })
        try #require(submit.isRunning, "the job ended before the stop")
        victim.signal(SIGSTOP)
        #expect(cluster.waitForWorkers(2, timeout: 30), "the stopped worker was not declared dead")
        #expect(submit.wait(timeout: 300) == 0, "\(submit.stderr)")
        let destination = tree.path("data/src.squeezed")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: destination) == 24)
        let before = try TreeCheck.fingerprints(destination)

        victim.signal(SIGCONT)
        #expect(cluster.waitForWorkers(3, timeout: 30), "the resumed worker did not come back")
        // Its work in flight ends one of two ways, by a race on resuming: answers sent before it
        // notices the silence are dropped as late; items it still held when it registered again
        // are not kept (they went to others), and it drops them unanswered.
        let late = Poll.until(timeout: 20, every: 0.2) {
            ((try? cluster.status().lateResults) ?? 0) >= 1
                || cluster.coordinator.stderr.contains("worker drops the items it held that were sent to others")
        }
        #expect(late, "the resumed worker's work was neither dropped as late nor refused on registering: \(cluster.coordinator.stderr)")
        #expect(try TreeCheck.fingerprints(destination) == before, "an output was written again")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: destination) == 24)
    }

    @Test("two clients at once: both jobs complete and share the workers")
    func twoClients() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/a"), files: 24, bytesPerFile: 4 << 20, seed: 1)
        try TestCorpus.make(at: tree.path("data/b"), files: 24, bytesPerFile: 4 << 20, seed: 2)
        // Batches of four 1 MiB items' bytes: one file each, so each job is 24 batches over the four
        // slots and both show progress while both run. With the default (16 MiB) each job was one
        // round of batches ending at nearly the same moment, and a poll could miss the overlap.
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2, coordinatorArguments: ["--item-size", "1M"])
        let first = try cluster.submit("submit-a", ["a", "--json"])
        let second = try cluster.submit("submit-b", ["b", "--json"])
        var sharedAtOnce = false
        while first.isRunning || second.isRunning {
            if let jobs = try? cluster.status().jobs.filter({ $0.state == .running }), jobs.count == 2,
               jobs.allSatisfy({ $0.bytesDone > 0 }) {
                sharedAtOnce = true
            }
            usleep(50_000)
        }
        #expect(first.wait(timeout: 1) == 0, "\(first.stderr)")
        #expect(second.wait(timeout: 1) == 0, "\(second.stderr)")
        #expect(sharedAtOnce, "the two jobs never progressed at the same time")
        #expect(try TreeCheck.verify(source: tree.path("data/a"), destination: tree.path("data/a.squeezed")) == 24)
        #expect(try TreeCheck.verify(source: tree.path("data/b"), destination: tree.path("data/b.squeezed")) == 24)
        let status = try cluster.status()
        #expect(status.jobs.filter { $0.state == .completed }.count == 2)
        #expect(status.workers.allSatisfy { $0.itemsDone > 0 })
    }

    @Test("Ctrl-C on submit cancels the job on the cluster: no temporaries, workers idle")
    func cancelWithSIGINT() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 4 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2)
        let submit = try cluster.submit("submit", ["src", "--json"])
        try #require(submit.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.1 })
        submit.signal(SIGINT)
        let code = submit.wait(timeout: 30)
        #expect(code != nil && code != 0)
        #expect(JobEvents.finished(submit.stdout)?["state"] as? String == "cancelled")
        // `finished` comes only after the writers removed the job's temporaries.
        #expect(TreeCheck.temporaries(under: tree.path("data/src.squeezed")).isEmpty)
        let idle = Poll.until(timeout: 10, every: 0.2) {
            guard let status = try? cluster.status() else { return false }
            return status.jobs.first?.state == .cancelled && status.workers.allSatisfy { $0.busy == 0 }
        }
        #expect(idle, "the job is still running or workers still hold its items")
        // The workers are free for the next job.
        let next = try cluster.submitAndWait(["src", "-o", "again"])
        #expect(next.status == 0, "\(next.stderr)")
    }

    @Test("a client that disappears (SIGKILL) gets its job cancelled")
    func clientKilled() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 4 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2)
        let submit = try cluster.submit("submit", ["src", "--json"])
        try #require(submit.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.1 })
        submit.signal(SIGKILL)
        let cancelled = Poll.until(timeout: 15, every: 0.2) {
            (try? cluster.status().jobs.first?.state) == .cancelled
        }
        #expect(cancelled, "\(cluster.coordinator.stderr)")
        let clean = Poll.until(timeout: 10) { TreeCheck.temporaries(under: tree.path("data/src.squeezed")).isEmpty }
        #expect(clean, "temporaries left")
    }

    @Test("--detach prints the job id and returns; the job runs to completion")
    func detached() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 6, bytesPerFile: 2 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1)
        let outcome = try cluster.submitAndWait(["src", "--detach"], timeout: 30)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let id = try #require(UInt64(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let done = Poll.until(timeout: 60, every: 0.2) {
            (try? cluster.status().jobs.first { $0.jobID == id }?.state) == .completed
        }
        #expect(done)
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 6)
    }

    @Test("entries a worker's scan skips reach a --json client one line each, and the coordinator sends them as one event for the listing")
    func skippedByAWorkersScan() throws {
        let tree = try TestTree()
        var data = TestData(seed: 5)
        try tree.write("data/src/top.txt", data.text(2000))
        try tree.write("data/src/sub/a.txt", data.text(3000))
        for index in 0..<3 {
            try FileManager.default.createSymbolicLink(atPath: tree.path("data/src/sub/link\(index)"), withDestinationPath: tree.path("data/src/sub/a.txt"))
        }
        #expect(mkfifo(tree.path("data/src/sub/pipe"), 0o644) == 0)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2, coordinatorArguments: ["--http", "127.0.0.1:0"])
        try #require(cluster.waitForWorkers(2))
        let outcome = try cluster.submitAndWait(["src", "--json"])
        // Skipped entries are reported, not errors: `squeeze compress` also exits 0.
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let events = JobEvents.parse(outcome.stdout)
        let skipped = events.filter { $0["event"] as? String == "skipped" }.compactMap { $0["path"] as? String }
        #expect(skipped.sorted() == ["sub/link0", "sub/link1", "sub/link2", "sub/pipe"])
        // The CLI prints the batch event as its lines, never as itself.
        #expect(!events.contains { $0["event"] as? String == "entriesSkipped" })
        let summary = try #require(JobEvents.finished(outcome.stdout))
        #expect((summary["skipped"] as? [[String: Any]])?.count == 4)
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 2)
        // `sub` was listed by a worker, not by the coordinator.
        let base = try #require(HTTPProbe.base(of: cluster.coordinator), "no http line: \(cluster.coordinator.stdout)")
        let metrics = try HTTPProbe.metrics(base + "metrics")
        #expect((metrics["squeeze_scans_total{by=\"worker\"}"] ?? 0) >= 1 && metrics["squeeze_files_total{result=\"skipped\"}"] == 4, "\(metrics)")
    }

    @Test("a job that skips more entries than one client message holds still reaches its client: each in --json, the summary's list cut and counted")
    func manySkippedEntries() throws {
        // In memory: 40,000 entries take half a minute to make on this project's disks.
        let tree = try TestTree(preferringMemory: true)
        var data = TestData(seed: 6)
        try tree.write("data/src/target.txt", data.text(4000))
        // 40,000 links with names of 200 bytes: about 10 MB of paths and reasons, more than
        // the 8 MiB a client takes in one message. The old summary listed them all, the client
        // dropped it and said it had lost the coordinator.
        let name = String(repeating: "l", count: 190)
        for folder in 0..<40 {
            try FileManager.default.createDirectory(atPath: tree.path("data/src/d\(folder)"), withIntermediateDirectories: true)
            for index in 0..<1000 {
                try FileManager.default.createSymbolicLink(atPath: tree.path("data/src/d\(folder)/\(name)\(index)"), withDestinationPath: "../target.txt")
            }
        }
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2)
        try #require(cluster.waitForWorkers(2))
        let outcome = try cluster.submitAndWait(["src", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr.suffix(2000))")
        let events = JobEvents.parse(outcome.stdout)
        #expect(events.filter { $0["event"] as? String == "skipped" }.count == 40_000)
        let summary = try #require(JobEvents.finished(outcome.stdout))
        #expect(summary["state"] as? String == "completed" && summary["filesCompressed"] as? Int == 1)
        let listed = try #require((summary["skipped"] as? [[String: Any]])?.count)
        #expect(listed > 100 && listed < 40_000 && summary["skippedTotal"] as? Int == 40_000)
        // Without --json the summary says how many it did not list.
        let plain = try cluster.submitAndWait(["src", "-o", "plain"])
        #expect(plain.status == 0, "\(plain.stderr.suffix(2000))")
        let lines = plain.stdout.split(separator: "\n")
        let shown = lines.filter { $0.hasPrefix("  d") && $0.hasSuffix(": symbolic link (not followed)") }.count
        let more = lines.compactMap { line -> Int? in
            guard line.hasPrefix("  and "), line.hasSuffix(" more (--json lists each)") else { return nil }
            return Int(line.dropFirst(6).prefix { $0.isNumber })
        }
        #expect(lines.contains("squeeze: skipped 40000 non-regular entries:") && shown > 100 && more == [40_000 - shown], "\(plain.stdout.suffix(500))")
    }

    @Test("a file that changes between the scan and the read fails alone; the rest of its bundle is written")
    func fileChangedInBundle() throws {
        let tree = try TestTree()
        var data = TestData(seed: 5)
        for name in ["a", "b", "c"] { try tree.write("data/src/\(name).txt", data.text(20_000)) }
        // No workers yet: the job is scanned and planned (one bundle) but nothing is read.
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0)
        let submitted = try cluster.submitAndWait(["src", "--detach"], timeout: 30)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        try tree.write("data/src/b.txt", data.text(30_000))
        try cluster.addWorker()
        let done = Poll.until(timeout: 30, every: 0.2) {
            guard let job = try? cluster.status().jobs.first else { return false }
            return job.state == .completed && job.filesDone == 3
        }
        #expect(done, "\(cluster.coordinator.stderr)")
        let output = tree.path("data/src.squeezed")
        #expect(FileManager.default.fileExists(atPath: output + "/a.txt.gz"))
        #expect(FileManager.default.fileExists(atPath: output + "/c.txt.gz"))
        #expect(!FileManager.default.fileExists(atPath: output + "/b.txt.gz"))
        let check = try ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "gzip -dc \(output)/a.txt.gz | cmp - \(tree.path("data/src/a.txt")) && gzip -dc \(output)/c.txt.gz | cmp - \(tree.path("data/src/c.txt"))"])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(try cluster.status().malformedMessages == 0)
    }

    @Test("level 0, blocks written in place: a worker stopped holding one is declared dead, the file is joined afresh, and its late write after SIGCONT reaches no output")
    func placedWorkerStopped() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 2, bytesPerFile: 16 << 20)
        let options = ["--level", "0", "--block-size", "256K", "--json"]
        let reference = try SqueezeBinary.run(["compress", tree.path("data/src"), "-o", tree.path("data/reference")] + options)
        try #require(reference.status == 0, "\(reference.stderr)")
        // Whole files up to 1 MiB only: the two 16 MiB files are cut into blocks written in place,
        // not compressed whole in a batch.
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--heartbeat", "500ms", "--whole-file-size", "1M"])
        // It holds each item 3 s before reading it: stopped while holding its first, it writes late once resumed.
        let victim = try cluster.addWorker(id: "victim", arguments: ["--storage", "shared", "--test-item-delay", "3s"])
        try #require(cluster.waitForWorkers(1))
        _ = try cluster.addWorker(id: "fast", arguments: ["--storage", "shared"])
        try #require(cluster.waitForWorkers(2))
        let submit = try cluster.submit("submit", ["src", "-o", "out"] + options)
        let holding = Poll.until(timeout: 20, every: 0.05) {
            (try? cluster.status().workers.first { $0.workerID == "victim" }?.busy ?? 0) ?? 0 >= 1
        }
        try #require(holding, "the slow worker never got an item")
        victim.signal(SIGSTOP)
        #expect(cluster.waitForWorkers(1, timeout: 30), "the stopped worker was not declared dead")
        victim.signal(SIGCONT)
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)")
        let summary = try #require(JobEvents.finished(submit.stdout))
        #expect(summary["state"] as? String == "completed")
        #expect((summary["filesJoinedByCoordinator"] as? Int ?? 0) >= 1, "the file whose item was taken back was not joined afresh")
        let destination = tree.path("data/out")
        let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", tree.path("data/reference"), destination])
        #expect(same.status == 0, "the outputs differ from embedded mode's: \(same.stdout)")
        let before = try TreeCheck.fingerprints(destination)

        // The resumed worker finishes its stale item: the write goes nowhere that is published or kept.
        let idle = Poll.until(timeout: 30, every: 0.2) {
            (try? cluster.status().workers.first { $0.workerID == "victim" }.map { $0.busy == 0 }) ?? false
        }
        #expect(idle, "the resumed worker did not come back idle")
        #expect(try TreeCheck.fingerprints(destination) == before, "an output changed after the job")
        #expect(TreeCheck.temporaries(under: destination).isEmpty)
    }

    /// Level 6 stitches multi-block files; level 0 (stored) has workers write their blocks in place.
    @Test("shared-storage, remote and mixed clusters write the same bytes as embedded mode; only remote blocks pass through the coordinator",
          arguments: ["6", "0"])
    func storageModes(level: String) throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src/big"), files: 6, bytesPerFile: 3 << 20)
        // 48 blocks, stitched in several segments.
        try TestCorpus.make(at: tree.path("data/src/huge"), files: 1, bytesPerFile: 12 << 20)
        var data = TestData(seed: 11)
        for index in 0..<40 { try tree.write("data/src/small/f\(index).txt", data.text(500 + index * 97)) }
        // Nested folders, odd names and an empty folder, in batches as much as in bundles.
        for index in 0..<30 { try tree.write("data/src/small/deep er/ü \(index)/-x \(index).txt", data.text(300 + index * 31)) }
        try tree.write("data/src/small/\u{1F600} emoji", data.text(1000))
        try FileManager.default.createDirectory(atPath: tree.path("data/src/small/empty folder"), withIntermediateDirectories: true)
        try tree.write("data/src/empty", [])
        let options = ["--block-size", "256K", "--json", "--level", level]
        let reference = try SqueezeBinary.run(["compress", tree.path("data/src"), "-o", tree.path("data/reference"), "--storage", "remote"] + options)
        #expect(reference.status == 0, "\(reference.stderr)")
        let total = try #require(JobEvents.finished(reference.stdout)?["bytesIn"] as? Int)

        func run(_ output: String, on cluster: TestCluster) throws -> (relayed: Int, joined: Int) {
            let outcome = try cluster.submitAndWait(["src", "-o", output] + options)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let summary = try #require(JobEvents.finished(outcome.stdout))
            #expect(summary["state"] as? String == "completed")
            let same = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", tree.path("data/reference"), tree.path("data/\(output)")])
            #expect(same.status == 0, "\(output) differs from embedded mode: \(same.stdout)")
            #expect(TreeCheck.temporaries(under: tree.path("data/\(output)")).isEmpty)
            #expect(try cluster.status().malformedMessages == 0)
            return (try #require(summary["bytesRelayed"] as? Int), try #require(summary["filesJoinedByCoordinator"] as? Int))
        }

        // Items of 512 KiB: the huge file's head goes in items of three blocks, its tail in
        // items of two, so blocks map back to items of two shapes. The big files are whole in
        // their scan's batch (up to 4 MiB), the huge one is split and stitched.
        let items = ["--item-size", "512K", "--whole-file-size", "4M"]
        let segments = ["--stitch-segment", "64K"] + items
        // Two keys: two principals, so each may check what the other stitched.
        let keys = try CurveKeys.principals(["w1", "w2"], in: tree)
        let shared = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                     coordinatorArguments: keys.coordinatorArguments + segments + ["--http", "127.0.0.1:0"],
                                     clientArguments: keys.clientArguments("client"))
        for name in ["w1", "w2"] { try shared.addWorker(id: name, arguments: keys.clientArguments(name)) }
        try #require(shared.waitForWorkers(2))
        let sharedRun = try run("out-shared", on: shared)
        #expect(sharedRun.relayed == 0, "blocks passed through the coordinator in shared mode")
        #expect(sharedRun.joined == 0, "the coordinator joined files that shared-storage workers should have stitched or placed")
        // Level 6: each stitched segment was read back by the worker that did not stitch it,
        // and passed. Level 0 stitches nothing (blocks are written in place).
        let checked = try shared.status()
        #expect(((checked.stitchChecksByWorkers ?? 0) > 0) == (level != "0") && checked.refusedStitches == 0, "\(checked)")
        // Every piece's stored CRC is confirmed by its compressor, so with two principals the
        // coordinator reads a segment only as an audit (one in 16).
        #expect((checked.stitchChecksByCoordinator ?? 0) <= (checked.auditsByCoordinator ?? 0), "\(checked)")
        #expect(try shared.status().workers.allSatisfy { $0.storage == "auto" && $0.itemsDone > 0 })
        // The small files went as batches: each published whole, or expanded for a rule.
        #expect((checked.batchesPublished ?? 0) + (checked.batchesExpanded ?? 0) > 0, "\(checked)")
        #expect((checked.batchesPublished ?? 0) > 0 || level == "0", "\(checked)")
        // The folders were listed by the workers (scan items), not walked by the coordinator;
        // every listing was taken.
        let base = try #require(HTTPProbe.base(of: shared.coordinator), "no http line: \(shared.coordinator.stdout)")
        let metrics = try HTTPProbe.metrics(base + "metrics")
        #expect((metrics["squeeze_scans_total{by=\"worker\"}"] ?? 0) >= 1 && metrics["squeeze_scans_refused_total"] == 0, "\(metrics)")
        // Each listing was listed again by the other principal's worker, and the two agreed:
        // alone, or, for a listing with files to compress, in their batch's verifyBatch.
        let alone = metrics["squeeze_listing_checks_total{by=\"worker\"}"] ?? 0, withBatches = metrics["squeeze_listing_checks_total{by=\"batch\"}"] ?? 0
        #expect(alone + withBatches >= 1 && metrics["squeeze_listing_differences_total"] == 0, "\(metrics)")
        #expect(withBatches >= 1 || level == "0", "\(metrics)")

        let mixed = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: segments)
        try mixed.addWorker(id: "sees-files")
        try mixed.addWorker(id: "remote", arguments: ["--storage", "remote"])
        try #require(mixed.waitForWorkers(2))
        let relayed = try run("out-mixed", on: mixed).relayed
        #expect(relayed > 0 && relayed < total, "mixed cluster relayed \(relayed) of \(total) bytes")
        #expect(try mixed.status().workers.allSatisfy { $0.itemsDone > 0 })

        // Default items (the files' items of 1 MiB and more are read with O_DIRECT), and small
        // ones read through the page cache (--buffered-reads): the same bytes.
        for (name, arguments) in [("out-remote", [String]()), ("out-remote-buffered", items + ["--buffered-reads"])] {
            let remote = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: arguments)
            try remote.addWorker(id: "r1", arguments: ["--storage", "remote"])
            try remote.addWorker(id: "r2", arguments: ["--storage", "remote"])
            try #require(remote.waitForWorkers(2))
            #expect(try run(name, on: remote).relayed == total)
        }
    }

    @Test("a coordinator restarted without a journal under a following submit: the client sees its job is gone and exits 1")
    func coordinatorRestartedUnderClient() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 4 << 20)
        // With its journal it would resume the job (ResumeTests); without, the job is gone.
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1, coordinatorArguments: ["--no-state"])
        let (clients, workers) = (cluster.clientEndpoint, cluster.workerEndpoint)
        let submit = try cluster.submit("submit", ["src", "--json", "--level", "9"])
        try #require(submit.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.05 })
        cluster.coordinator.signal(SIGKILL)
        _ = cluster.coordinator.wait(timeout: 10)
        // A new coordinator on the same ports answers heartbeats at once, but not for the job.
        try cluster.startCoordinator(clients: clients, workers: workers)
        #expect(submit.wait(timeout: 20) == 1, "the client did not notice that its job was gone")
        #expect(submit.stderr.contains("lost contact"), "\(submit.stderr)")
    }

    @Test("workers come back by themselves when the coordinator restarts")
    func coordinatorRestart() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 4, bytesPerFile: 1 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2)
        let (clients, workers) = (cluster.clientEndpoint, cluster.workerEndpoint)
        cluster.coordinator.signal(SIGTERM)
        // Well inside the 10 s grace after which the service runner cancels: a graceful stop
        // that needs the cancellation left some task of the coordinator waiting for nothing.
        #expect(cluster.coordinator.wait(timeout: 5) == 0, "\(cluster.coordinator.stderr)")
        sleep(2)  // the workers notice the silence meanwhile
        try cluster.startCoordinator(clients: clients, workers: workers)
        #expect(cluster.waitForWorkers(2, timeout: 30), "\(cluster.coordinator.stderr)")
        let alive = cluster.workers.allSatisfy { $0.isRunning }
        #expect(alive, "a worker exited when the coordinator went away")
        let outcome = try cluster.submitAndWait(["src"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 4)
    }

    @Test("SIGTERM: a worker drains and says goodbye; the coordinator fails its jobs cleanly and exits 0")
    func gracefulShutdown() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 4 << 20)
        // A long heartbeat: a worker gone within a second or two must have said goodbye.
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 2, coordinatorArguments: ["--heartbeat", "5s"])
        let first = try cluster.submit("submit-1", ["src", "--json"])
        try #require(first.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.1 })
        let leaving = cluster.workers[0]
        leaving.signal(SIGTERM)
        #expect(leaving.wait(timeout: 15) == 0, "\(leaving.stderr)")
        // Silence is noticed only 15 s (three 5 s heartbeats) after the worker's last message,
        // which came at most one heartbeat before it exited: gone within 8 s is a goodbye.
        #expect(cluster.waitForWorkers(1, timeout: 8), "the worker left without a goodbye")
        #expect(first.wait(timeout: 300) == 0, "\(first.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 24)

        let second = try cluster.submit("submit-2", ["src", "-o", "second", "--json"])
        try #require(second.waitForOutput(timeout: 120) { JobEvents.progress($0) >= 0.05 })
        cluster.coordinator.signal(SIGTERM)
        // Its client's final event leaves within 3 s; the 10 s grace, after which the service
        // group would cancel it, must not be needed.
        #expect(cluster.coordinator.wait(timeout: 9) == 0, "\(cluster.coordinator.stderr)")
        #expect(second.wait(timeout: 20) == 1)
        let finished = JobEvents.finished(second.stdout)
        #expect(finished?["state"] as? String == "failed")
        #expect((finished?["message"] as? String)?.contains("shutting down") == true)
        #expect(TreeCheck.temporaries(under: tree.path("data/second")).isEmpty)
    }

    @Test("paths outside --root are refused with a clear error and nothing is created")
    func outsideRoot() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 1, bytesPerFile: 1000)
        try TestCorpus.make(at: tree.path("outside"), files: 1, bytesPerFile: 1000)
        try FileManager.default.createSymbolicLink(atPath: tree.path("data/escape"), withDestinationPath: tree.path("outside"))
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1)
        for source in [tree.path("outside"), "../outside", "src/../../outside", "escape", "/etc"] {
            let outcome = try cluster.submitAndWait([source], timeout: 30)
            #expect(outcome.status == 1, "\(source)")
            #expect(outcome.stderr.contains("outside the coordinator's root"), "\(source): \(outcome.stderr)")
        }
        let elsewhere = tree.path("elsewhere/deeper")
        let refused = try cluster.submitAndWait(["src", "-o", elsewhere], timeout: 30)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("outside the coordinator's root"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tree.path("elsewhere")))
        #expect(!FileManager.default.fileExists(atPath: tree.path("outside.squeezed")))
        let status = try cluster.status()
        #expect(status.jobs.isEmpty)
    }

    @Test("squeeze health: healthy coordinator and registered worker; unhealthy once the coordinator is gone")
    func health() throws {
        let tree = try TestTree()
        try FileManager.default.createDirectory(atPath: tree.path("data"), withIntermediateDirectories: true)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0)
        let healthEndpoint = "tcp://127.0.0.1:\(FreePort.next())"
        let worker = try BackgroundProcess(
            "worker-health", arguments: ["worker", "--coordinator", cluster.workerEndpoint, "--health", healthEndpoint], in: tree.root)
        #expect(cluster.waitForWorkers(1))
        let coordinator = try SqueezeBinary.run(["health", "--endpoint", cluster.clientEndpoint], timeout: 30)
        #expect(coordinator.status == 0, "\(coordinator.stderr)")
        let registered = Poll.until(timeout: 10, every: 0.2) {
            (try? SqueezeBinary.run(["health", "--endpoint", healthEndpoint], timeout: 30).status) == 0
        }
        #expect(registered, "\(worker.stderr)")
        cluster.coordinator.signal(SIGKILL)
        let unhealthy = Poll.until(timeout: 20, every: 0.5) {
            guard let outcome = try? SqueezeBinary.run(["health", "--endpoint", healthEndpoint], timeout: 30) else { return false }
            return outcome.status == 1 && outcome.stderr.contains("not registered")
        }
        #expect(unhealthy)
        #expect(worker.isRunning)
        #expect(try SqueezeBinary.run(["health", "--endpoint", cluster.clientEndpoint], timeout: 30).status == 1)
    }

    @Test("an unreachable coordinator is a clear error within seconds, not a hang")
    func unreachable() throws {
        let started = Date()
        let submit = try SqueezeBinary.run(["submit", "/data/x", "--coordinator", "tcp://127.0.0.1:1"], timeout: 60)
        #expect(submit.status == 1)
        #expect(submit.stderr.contains("cannot reach the coordinator at tcp://127.0.0.1:1"), "\(submit.stderr)")
        let status = try SqueezeBinary.run(["status", "--coordinator", "tcp://127.0.0.1:1"], timeout: 60)
        #expect(status.status == 1)
        #expect(status.stderr.contains("cannot reach the coordinator"))
        #expect(Date().timeIntervalSince(started) < 20)
    }
}
