import Foundation
import Glibc
import Testing

/// A worker the coordinator took for dead comes back still holding its items: it finishes them
/// instead of having them compressed again.
@Suite("a worker declared dead and back", .serialized)
struct ReturningWorkerTests {
    /// A cluster of one two-slot worker, `returning`, compressing 12 files of 1 MiB in `tree`
    /// when it is stopped (SIGSTOP) and declared dead; and the submit waiting on the job.
    static func stoppedHoldingWork(in tree: TestTree) throws -> (TestCluster, BackgroundProcess, BackgroundProcess) {
        try TestCorpus.make(at: tree.path("data/src"), files: 12, bytesPerFile: 1 << 20)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--heartbeat", "200ms"])
        // Each item waits 1 s before it is compressed: the worker holds several when it is stopped.
        let worker = try cluster.addWorker(slots: 2, id: "returning", arguments: ["--test-item-delay", "1s"])
        try #require(cluster.waitForWorkers(1))
        let submit = try cluster.submit("submit", ["src", "--json"])
        let holding = Poll.until(timeout: 20, every: 0.05) { (try? cluster.status().workers.first?.busy ?? 0) ?? 0 >= 1 }
        try #require(holding, "the worker never got an item")
        worker.signal(SIGSTOP)
        #expect(cluster.waitForWorkers(0, timeout: 30), "the stopped worker was not declared dead")
        return (cluster, worker, submit)
    }

    @Test("stopped past its liveness with no other worker to take its items, it resumes them: kept, none compressed twice, every output right")
    func keepsItsItems() throws {
        let tree = try TestTree()
        let (cluster, worker, submit) = try Self.stoppedHoldingWork(in: tree)
        worker.signal(SIGCONT)
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 12)
        #expect(cluster.coordinator.stderr.contains("worker kept the items it still held"), "\(cluster.coordinator.stderr)")
        let status = try cluster.status()
        // Nothing it held was compressed again, by it or anyone: no answer came twice. An answer
        // it finished while stopped may reach the coordinator before it announces itself again
        // (a slow machine, Thread Sanitizer): that one is dropped, from a peer that is not a
        // registered worker, and its item is done again. Those are the only late ones. Past the
        // first, such drops are logged only in a summary line, ten seconds after the first
        // (`warningInterval`): the count waits for it.
        let message = "dropped an answer from a peer that is not a registered worker"
        let logged = Poll.until(timeout: 30, every: 0.2) { Self.occurrences(in: cluster.coordinator.stderr, of: message) >= status.lateResults }
        let droppedBeforeJoining = Self.occurrences(in: cluster.coordinator.stderr, of: message)
        #expect(logged && status.lateResults == droppedBeforeJoining, "late \(status.lateResults), dropped before joining \(droppedBeforeJoining): \(cluster.coordinator.stderr) worker: \(worker.stderr)")
        #expect(status.malformedMessages == 0, "\(cluster.coordinator.stderr) worker: \(worker.stderr)")
    }

    @Test("the coordinator paused as the stopped worker comes back: a queue of answers and announcements at once; its scan answered whole, no strike, nothing malformed, every output right")
    func coordinatorPausedAsItReturns() throws {
        let tree = try TestTree()
        let (cluster, worker, submit) = try Self.stoppedHoldingWork(in: tree)
        // The worker resumes while the coordinator is paused: it finishes what it held, sends
        // answers (a scan's listing among them) and heartbeats, finds the coordinator silent and
        // reconnects. The coordinator then reads all of it at once: answers from a peer it
        // declared dead, and an `unknownPeer` for each heartbeat.
        cluster.coordinator.signal(SIGSTOP)
        defer { cluster.coordinator.signal(SIGCONT) }
        worker.signal(SIGCONT)
        let reconnecting = Poll.until(timeout: 20, every: 0.05) { worker.stderr.contains("coordinator silent; reconnecting") }
        cluster.coordinator.signal(SIGCONT)
        #expect(reconnecting, "the worker did not find the coordinator silent: \(worker.stderr)")
        #expect(submit.wait(timeout: 120) == 0, "\(submit.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 12)
        let status = try cluster.status()
        let log = cluster.coordinator.stderr
        #expect(status.malformedMessages == 0, "\(log) worker: \(worker.stderr)")
        #expect(!log.contains("result refused"), "an honest worker got a strike: \(log)")
        // Its announcements: one when it started, then at most one on each connection (the
        // old one, told it is unknown; the new one). Not one per heartbeat answered.
        let joined = log.split(separator: "\n").filter { $0.contains("worker joined") }.count
        #expect((2...3).contains(joined), "joined \(joined) times: \(log)")
    }

    @Test("a rate-limited warning is counted from its lines, the ones logged late in a summary included")
    func countsThrottledWarnings() {
        let message = "dropped an answer from a peer that is not a registered worker"
        let log = """
            2026-11-29T01:34:25+0000 info squeeze.coordinator: host=vm slots=2 storage=auto worker=returning [SqueezeCoordinator] worker joined
            2026-11-29T01:34:31+0000 warning squeeze.coordinator: count=3 message=resultRef peer=00a0 [SqueezeCoordinator] \(message)
            2026-11-29T01:34:41+0000 warning squeeze.coordinator: not-logged=2 [SqueezeCoordinator] \(message): 2 more not logged
            2026-11-29T01:34:52+0000 warning squeeze.coordinator: count=7 message=resultRef not-logged-since-last=1 peer=00a0 [SqueezeCoordinator] \(message)
            2026-11-29T01:34:53+0000 warning squeeze.coordinator: count=8 item=4 job=1 message=result worker=returning [SqueezeCoordinator] dropped an answer from a worker not holding its item
            """
        // The first line, the two it summarized, and the last line with the one before it.
        #expect(Self.occurrences(in: log, of: message) == 5)
        #expect(Self.occurrences(in: log, of: "dropped an answer from a worker not holding its item") == 1)
        #expect(Self.occurrences(in: "", of: message) == 0)
    }

    /// How many times the coordinator's rate-limited warning `message` happened, from its log:
    /// a line that says it is one, plus the ones not logged before it (`not-logged-since-last=`);
    /// a summary line (`not-logged=`) is the ones not logged since the last line.
    static func occurrences(in log: String, of message: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(message) }.reduce(0) { sum, line in
            let fields = line.split(separator: " ")
            func value(_ key: String) -> Int? {
                fields.first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) }
            }
            if let summarized = value("not-logged") { return sum + summarized }
            return sum + 1 + (value("not-logged-since-last") ?? 0)
        }
    }
}
