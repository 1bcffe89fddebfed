import Foundation
import SqueezeProtocol
import Testing

/// One party with two identities (Tests/Peers/bad_worker.py `collude`: one id compresses into
/// corrupt deflate under the true CRC-32s, the other vouches for it) against the real binary:
/// nothing corrupt is ever published.
@Suite("collusion", .serialized)
struct CollusionTests {
    @Test("one process under two worker ids, without keys: its second id never vouches for the first, and every output is right",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func oneProcessTwoIDs() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 200 << 10)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: ["--item-size", "128K", "--block-size", "64K"])
        let party = try cluster.startHostileWorker(python: python, id: "bad", slots: 4, mode: "collude", in: tree.root)
        try #require(cluster.waitForWorkers(2), "the Python worker did not register both ids: \(party.stderr)")
        try cluster.addWorker(slots: 1, id: "honest", arguments: ["--storage", "remote"])
        try #require(cluster.waitForWorkers(3))

        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 24)
        #expect(party.stdout.contains("answered 1"), "the party was given no item: \(party.stdout)")
        // On loopback the kernel names the process behind each connection: one process, one principal.
        #expect(!party.stdout.contains("vouched"), "its second id vouched for the first: \(party.stdout)")
        let status = try cluster.status()
        #expect(status.workers.first { $0.workerID == "bad" }?.quarantined == true, "\(status.workers)")
        #expect(status.workers.first { $0.workerID == "honest" }?.quarantined == nil, "\(status.workers)")
        #expect(status.collusionsCaught == 0)

    }

    @Test("one process under two worker ids with a key each is still one principal: its second id never vouches for the first",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func oneProcessTwoKeys() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 24, bytesPerFile: 200 << 10)
        let keys = try CurveKeys.principals(["bad", "bad-v", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--item-size", "128K", "--block-size", "64K"],
                                      clientArguments: keys.clientArguments("client"))
        var environment = keys.hostileEnvironment("bad")
        environment["CURVE_SECRET_V"] = keys.secret("bad-v")
        let party = try cluster.startHostileWorker(python: python, id: "bad", slots: 4, mode: "collude", in: tree.root, environment: environment)
        try #require(cluster.waitForWorkers(2), "the Python worker did not register both ids: \(party.stderr)")
        try cluster.addWorker(slots: 1, id: "honest", arguments: ["--storage", "remote"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(3))
        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 24)
        #expect(party.stdout.contains("answered 1"), "the party was given no item: \(party.stdout)")
        #expect(!party.stdout.contains("vouched"), "its second key vouched for the first: \(party.stdout)")
        #expect(try cluster.status().workers.first { $0.workerID == "bad" }?.quarantined == true)
    }

    @Test("two colluding keys: once either is caught (by the audit, or by an honest verifier), every output is checked again and right when the job completes",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func twoKeys() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 160, bytesPerFile: 60 << 10)
        let keys = try CurveKeys.principals(["bad", "bad-v", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--item-size", "64K", "--block-size", "64K"],
                                      clientArguments: keys.clientArguments("client"))
        // Two processes, a key each: two principals, telling each other the truth through a folder.
        let share = tree.path("share")
        try FileManager.default.createDirectory(atPath: share, withIntermediateDirectories: true)
        var environment = keys.hostileEnvironment("bad")
        environment["COLLUDE_SHARE"] = share
        environment["COLLUDE_ROLE"] = "compress"
        let party = try cluster.startHostileWorker(python: python, id: "bad", slots: 4, mode: "collude", in: tree.root, environment: environment)
        try #require(cluster.waitForWorkers(1), "the compressing half did not register: \(party.stderr)")
        var partnerEnvironment = keys.hostileEnvironment("bad-v")
        partnerEnvironment["COLLUDE_SHARE"] = share
        let partner = try cluster.startHostileWorker(python: python, id: "bad-v", slots: 1, mode: "collude-verify", in: tree.root,
                                                     environment: partnerEnvironment)
        try #require(cluster.waitForWorkers(2), "the vouching half did not register: \(partner.stderr)")
        try cluster.addWorker(slots: 1, id: "honest", arguments: ["--storage", "remote"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(3))
        // Until the kernel has named each worker's process, a loopback worker counts as one with
        // all the others, and the partner could not vouch: the job starts once it has.
        let named = try Poll.until(timeout: 20) { try cluster.status().workers.allSatisfy { $0.localProcess != nil } }
        let workers = try cluster.status().workers.map { "\($0.workerID)=\($0.localProcess.map(String.init) ?? "?")" }
        try #require(named, "the coordinator did not name every worker's process: \(workers) \(cluster.coordinator.stderr.split(separator: "\n").filter { $0.contains("process") || $0.contains("joined") }.joined(separator: " | "))")

        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 160)
        let status = try cluster.status()
        // The honest worker checks some of the party's answers too, so its compressing id is
        // caught either way; its vouching id is quarantined when an audit was what caught it.
        #expect(status.workers.first { $0.workerID == "bad" }?.quarantined == true, "\(status.workers)")
        #expect(status.workers.first { $0.workerID == "honest" }?.quarantined == nil, "\(status.workers)")
        if (status.collusionsCaught ?? 0) > 0 {
            #expect(status.workers.first { $0.workerID == "bad-v" }?.quarantined == true, "\(status.workers)")
        }
        // A pass over every output ran, unless the party was caught before any of its answers
        // was accepted on its partner's word (then the outputs above are all honest work).
        let rechecked = status.outputsRechecked ?? 0
        #expect(rechecked == 0 || rechecked >= 160, "\(status)")
        #expect(partner.stdout.contains("vouched 1"), "the partner vouched for nothing: the test proves nothing: \(partner.stdout) \(cluster.coordinator.stderr.suffix(4000))")
    }
}
