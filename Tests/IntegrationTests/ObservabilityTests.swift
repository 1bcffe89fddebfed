import Foundation
import Glibc
import SqueezeProtocol
import Testing

/// `--http` and `--trace` on the real binaries: metrics read by Prometheus's own parser, the
/// page's JSON and event stream, and trace files read back as trace-event JSON.
@Suite("metrics, live page and traces", .serialized)
struct ObservabilityTests {
    @Test("coordinator and worker metrics parse; counters grow by exactly the job's bytes; the worker gauge follows joins and leaves")
    func metrics() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 12, bytesPerFile: 1 << 20)
        // Whole files up to 512 KiB only: the files of 1 MiB are cut into blocks, and the
        // coordinator joins and syncs outputs (its fsync histogram has samples).
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--http", "127.0.0.1:0", "--whole-file-size", "512K"])
        let base = try #require(HTTPProbe.base(of: cluster.coordinator), "no http line: \(cluster.coordinator.stdout)")
        let before = try HTTPProbe.metrics(base + "metrics")
        #expect(before["squeeze_workers"] == 0)
        #expect(before["#type squeeze_input_bytes"] == 1, "a counter (the parser names its family without _total)")
        #expect(before["#type squeeze_workers"] == 2, "a gauge")

        let first = try cluster.addWorker(slots: 2, id: "w1", arguments: ["--http", "127.0.0.1:0"])
        #expect(Poll.until(timeout: 20) { (try? HTTPProbe.metrics(base + "metrics"))?["squeeze_workers"] == 1 })
        let second = try cluster.addWorker(slots: 1, id: "w2")
        #expect(Poll.until(timeout: 20) { (try? HTTPProbe.metrics(base + "metrics"))?["squeeze_workers"] == 2 })
        #expect(try HTTPProbe.metrics(base + "metrics")["squeeze_worker_slots"] == 3)

        let outcome = try cluster.submitAndWait(["src", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let summary = try #require(JobEvents.finished(outcome.stdout))
        let bytesIn = try #require(summary["bytesIn"] as? Int), bytesOut = try #require(summary["bytesOut"] as? Int)
        #expect(bytesIn == 12 << 20)
        let after = try HTTPProbe.metrics(base + "metrics")
        #expect(after["squeeze_input_bytes_total"] == Double(bytesIn), "input bytes: \(after)")
        #expect(after["squeeze_output_bytes_total"] == Double(bytesOut))
        #expect(after["squeeze_files_total{result=\"done\"}"] == 12)
        #expect(after["squeeze_files_total{result=\"failed\"}"] == 0)
        #expect(after["squeeze_jobs_ended_total{state=\"completed\"}"] == 1)
        #expect(after["squeeze_jobs{state=\"completed\"}"] == 1)
        #expect(after["squeeze_jobs{state=\"running\"}"] == 0)
        #expect(after["squeeze_items_in_flight"] == 0)
        #expect((after["squeeze_item_duration_seconds_count"] ?? 0) > 0)
        #expect(after["#type squeeze_item_duration_seconds"] == 3, "a histogram")
        #expect((after["squeeze_fsync_duration_seconds_count"] ?? 0) > 0)
        #expect(after.keys.contains("squeeze_item_duration_seconds_bucket{le=\"+Inf\"}"))

        let workerBase = try #require(HTTPProbe.base(of: first), "no worker http line: \(first.stdout)")
        let worker = try HTTPProbe.metrics(workerBase + "metrics")
        #expect((worker["squeeze_worker_items_total{result=\"done\"}"] ?? 0) > 0, "\(worker)")
        #expect((worker["squeeze_worker_input_bytes_total"] ?? 0) > 0)
        #expect(worker["squeeze_worker_slots"] == 2)
        #expect(worker["squeeze_worker_busy_slots"] == 0)
        #expect(worker["squeeze_worker_connected"] == 1)

        // The other worker leaves: the gauge goes down.
        second.signal(SIGTERM)
        #expect(second.wait(timeout: 30) != nil)
        #expect(Poll.until(timeout: 20) { (try? HTTPProbe.metrics(base + "metrics"))?["squeeze_workers"] == 1 })
    }

    @Test("GET /api/status and the event stream show workers and jobs; GET / is the page; --http refuses a bad address")
    func statusAndEvents() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 4, bytesPerFile: 256 << 10)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2, coordinatorArguments: ["--http", "0"])
        let base = try #require(HTTPProbe.base(of: cluster.coordinator))
        #expect(base.hasPrefix("http://127.0.0.1:"), "a bare port binds loopback: \(base)")
        let outcome = try cluster.submitAndWait(["src"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let deadline = Date().addingTimeInterval(20)
        var status: [String: Any] = [:]
        // The feed samples once a second: wait for the job's end to show.
        while Date() < deadline {
            status = (try? JSONSerialization.jsonObject(with: HTTPProbe.get(base + "api/status"))) as? [String: Any] ?? [:]
            if ((status["jobs"] as? [[String: Any]])?.first?["state"] as? String) == "completed" { break }
            usleep(200_000)
        }
        let workers = (status["workers"] as? [[String: Any]] ?? []).compactMap { $0["workerID"] as? String }
        #expect(workers == ["worker-1", "worker-2"], "\(status)")
        let job = try #require((status["jobs"] as? [[String: Any]])?.first)
        #expect(job["state"] as? String == "completed")
        #expect(job["percent"] as? Double == 100)
        #expect((job["ratio"] as? Double ?? 2) < 1.01)
        #expect((status["cluster"] as? [String: Any])?["slots"] as? Int == 2)

        let event = try HTTPProbe.firstEvent(base + "api/events", named: "status")
        let streamed = try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any]
        #expect((streamed?["workers"] as? [Any])?.count == 2)

        let page = String(decoding: try HTTPProbe.get(base), as: UTF8.self)
        #expect(page.contains("<!doctype html>") || page.contains("<!DOCTYPE html>"))
        #expect(page.contains("api/events"))
        #expect(!page.contains("http://") && !page.contains("https://"), "no external assets")

        let refused = try SqueezeBinary.run(["coordinator", "--http", "127.0.0.1:99999"], timeout: 20)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--http"), "\(refused.stderr)")
    }

    @Test("submit --trace: every item once on its worker's slot lanes, properly nested, with its phases")
    func submitTrace() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 10, bytesPerFile: 1 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 2, slots: 2)
        let tracePath = tree.path("job.trace.json")
        let outcome = try cluster.submitAndWait(["src", "--block-size", "256K", "--trace", tracePath, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let trace = try TraceFile(path: tracePath)
        let items = trace.items
        let written = items.filter { $0.outcome == "written" }
        // 10 files of 1 MiB in 256 KiB blocks: each item holds blocks of one file.
        let ids = Set(written.map(\.item))
        #expect(written.count == ids.count, "an item written twice: \(written.map(\.item).sorted())")
        #expect(!ids.isEmpty && ids == Set(0..<ids.count), "items missing: \(ids.sorted())")
        #expect(items.allSatisfy { $0.attempt == 1 || $0.outcome != "running" })
        // One process per worker, one lane per slot.
        let pids = Set(items.map(\.pid))
        #expect(pids.count == 2, "\(pids)")
        for pid in pids {
            #expect(trace.name(pid: pid)?.hasPrefix("worker worker-") == true)
            let lanes = Set(items.filter { $0.pid == pid }.map(\.tid))
            #expect(lanes.isSubset(of: [1, 2]), "slots 1 and 2 only: \(lanes)")
            for lane in lanes { #expect(trace.name(pid: pid, tid: lane) == "slot \(lane)") }
        }
        #expect(trace.name(pid: 1) == "coordinator")
        #expect(trace.badlyNestedLanes.isEmpty, "\(trace.badlyNestedLanes)")
        let phases = Set(trace.events.compactMap { $0["cat"] as? String == "phase" ? $0["name"] as? String : nil })
        #expect(phases.contains("compress"), "\(phases)")
        #expect(trace.events.contains { $0["ph"] as? String == "C" })
    }

    @Test("submit --trace with a worker stopped mid-job: requeued attempts are marked, every item written once")
    func compressTraceWithRequeue() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 16, bytesPerFile: 1 << 20)
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 2,
            coordinatorArguments: ["--heartbeat", "200ms", "--liveness", "3"], workerArguments: ["--test-item-delay", "100ms"])
        let tracePath = tree.path("requeue.trace.json")
        let submit = try cluster.submit("submit", ["src", "--block-size", "256K", "--trace", tracePath, "--json"])
        try #require(submit.waitForOutput(timeout: 60) { JobEvents.progress($0) >= 0.1 })
        // Frozen, it holds its items until declared dead; they go to the other worker.
        cluster.workers[0].signal(SIGSTOP)
        let failures = { submit.stdout.split(separator: "\n").filter { $0.contains("\"fileFailed\"") || $0.contains("\"filesFailed\"") } }
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr) \(failures()) coordinator: \(cluster.coordinator.stderr)")
        cluster.workers[0].signal(SIGCONT)
        let items = try TraceFile(path: tracePath).items
        let written = items.filter { $0.outcome == "written" }
        #expect(written.count == Set(written.map(\.item)).count)
        let requeued = items.filter { $0.outcome == "requeued" || $0.outcome == "late" }
        #expect(!requeued.isEmpty, "the stopped worker's items are marked: \(Set(items.map(\.outcome)))")
        for attempt in requeued where attempt.outcome == "requeued" {
            #expect(written.contains { $0.item == attempt.item && $0.attempt > attempt.attempt }, "item \(attempt.item) written by a later attempt")
        }
    }

    @Test("compress --trace: the embedded run writes a trace too")
    func embeddedTrace() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("src"), files: 3, bytesPerFile: 512 << 10)
        let tracePath = tree.path("embedded.trace.json")
        let outcome = try SqueezeBinary.run(["compress", tree.path("src"), "--workers", "2", "--trace", tracePath])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("trace of"), "\(outcome.stderr)")
        let trace = try TraceFile(path: tracePath)
        #expect(!trace.items.isEmpty)
        #expect(trace.items.allSatisfy { $0.outcome == "written" })
        #expect(trace.badlyNestedLanes.isEmpty)
    }
}
