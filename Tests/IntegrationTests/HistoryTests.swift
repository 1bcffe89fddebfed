import Foundation
import Glibc
import SqueezeProtocol
import Testing

/// `squeeze status` lists ended jobs from the coordinator's journal, across restarts, pruned by
/// count (`--history`) and age (`--history-age`).
@Suite("job history", .serialized)
struct HistoryTests {
    @Test("ended jobs outlive a coordinator restart in status (state, files, failures, bytes, duration, who submitted); --history and --history-age prune them; ids go on")
    func historyAcrossRestarts() throws {
        let tree = try TestTree()
        var data = TestData(seed: 9)
        for name in ["a", "b", "c"] { try tree.write("data/src/\(name).txt", data.text(200_000)) }
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 1)
        #expect(try cluster.submitAndWait(["src"]).status == 0)
        #expect(try cluster.submitAndWait(["src"]).status == 2)
        #expect(try cluster.submitAndWait(["src", "-o", "other", "--level", "1"]).status == 0)
        let before = try cluster.status().jobs
        #expect(before.map(\.jobID) == [3, 2, 1])
        #expect(before.map(\.state) == [.completed, .completed, .completed])
        #expect(before.map(\.filesFailed) == [0, 3, 0])
        #expect(before[2].files == 3 && before[2].bytesDone == 600_000 && (before[2].bytesOut ?? 0) > 0)
        let user = String(cString: getpwuid(geteuid()).pointee.pw_name)
        #expect(before.allSatisfy { $0.submitter?.hasPrefix(user + "@") == true && $0.seconds != nil && $0.submittedAt != nil })

        cluster.coordinator.signal(SIGTERM)
        #expect(cluster.coordinator.wait(timeout: 10) == 0)
        let (clients, workers) = (cluster.clientEndpoint, cluster.workerEndpoint)
        try cluster.startCoordinator(clients: clients, workers: workers)
        let after = try cluster.status().jobs
        #expect(after.map(\.jobID) == [3, 2, 1])
        #expect(after.map(\.state) == before.map(\.state))
        #expect(after.map(\.filesFailed) == before.map(\.filesFailed))
        #expect(after.map(\.files) == before.map(\.files))
        #expect(after.map(\.bytesOut) == before.map(\.bytesOut))
        #expect(after.map(\.submitter) == before.map(\.submitter))
        let text = try SqueezeBinary.run(["status", "--coordinator", cluster.clientEndpoint], timeout: 30)
        #expect(text.stdout.contains("0 running, 3 ended in the history") && text.stdout.contains("3 failed") && text.stdout.contains(user + "@"),
                "\(text.stdout)")

        cluster.coordinator.signal(SIGTERM)
        #expect(cluster.coordinator.wait(timeout: 10) == 0)
        try cluster.startCoordinator(clients: clients, workers: workers, extra: ["--history", "2"])
        #expect(try cluster.status().jobs.map(\.jobID) == [3, 2])

        // Every job ended more than a second ago: an age of 1s leaves none.
        let lastEnd = after.compactMap { job in job.submittedAt.map { $0 + (job.seconds ?? 0) } }.max() ?? 0
        try #require(Poll.until(timeout: 5) { Date().timeIntervalSince1970 > lastEnd + 1.5 })
        cluster.coordinator.signal(SIGTERM)
        #expect(cluster.coordinator.wait(timeout: 10) == 0)
        try cluster.startCoordinator(clients: clients, workers: workers, extra: ["--history-age", "1s"])
        #expect(try cluster.status().jobs.isEmpty)
        try #require(cluster.waitForWorkers(1))
        let next = try cluster.submitAndWait(["src", "-o", "third", "--json"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(JobEvents.finished(next.stdout)?["jobID"] as? Int == 4)
    }
}
