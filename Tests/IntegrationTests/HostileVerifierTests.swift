import Foundation
import Glibc
import SqueezeProtocol
import Testing

/// Verification items with the real binary: answers are checked by workers of other principals
/// than the one that compressed them (each here connects with a CURVE key of its own: on one
/// host without keys they would all be one principal), and a worker that lies as a verifier,
/// either way, neither gets an honest worker quarantined nor a wrong block into an output.
@Suite("verifiers are checked too", .serialized)
struct HostileVerifierTests {
    @Test("a verifier calling good answers bad: confirmed first, so the honest worker gets no strike and the liar is quarantined",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func verifierCallingGoodAnswersBad() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 8, bytesPerFile: 2 << 20)
        let keys = try CurveKeys.principals(["liar", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--item-size", "1M", "--block-size", "256K"],
                                      clientArguments: keys.clientArguments("client"))
        let liar = try cluster.startHostileWorker(python: python, id: "liar", slots: 1, mode: "verify-bad", in: tree.root,
                                                  environment: keys.hostileEnvironment("liar"))
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(liar.stderr)")
        try cluster.addWorker(slots: 2, id: "honest", arguments: ["--storage", "remote"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(2))

        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 8)
        #expect(liar.stdout.contains("verdict 3"), "the liar was asked too few checks: \(liar.stdout)")

        let status = try cluster.status()
        let honest = try #require(status.workers.first { $0.workerID == "honest" })
        #expect(honest.quarantined == nil, "\(status.workers)")
        #expect(honest.refusedResults == 0, "\(status.workers)")
        #expect(status.workers.first { $0.workerID == "liar" }?.quarantined == true, "\(status.workers)")
        #expect(status.refusedResults == 0, "no answer was refused: every one was good")
        #expect((status.checksByWorkers ?? 0) >= 3)
        #expect(cluster.coordinator.isRunning)
    }

    @Test("a verifier calling bad answers good: it cannot without decoding, so the bad worker's blocks are still refused",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func verifierCallingBadAnswersGood() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 12, bytesPerFile: 3 << 20)
        let keys = try CurveKeys.principals(["aa-liar", "bad-worker", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--item-size", "1M", "--block-size", "256K"],
                                      clientArguments: keys.clientArguments("client"))
        // The liar announces no engine, so it holds no item and is the least loaded verifier
        // for the bad worker's answers (ties go to the smaller id, "aa-liar").
        let liar = try cluster.startHostileWorker(python: python, id: "aa-liar", slots: 1, mode: "verify-good", in: tree.root,
                                                  environment: keys.hostileEnvironment("aa-liar"))
        try #require(cluster.waitForWorkers(1), "the liar did not register: \(liar.stderr)")
        let bad = try cluster.startHostileWorker(python: python, id: "bad-worker", slots: 4, in: tree.root,
                                                 environment: keys.hostileEnvironment("bad-worker"))
        try #require(cluster.waitForWorkers(2), "the bad worker did not register: \(bad.stderr)")
        try cluster.addWorker(slots: 1, id: "honest", arguments: ["--storage", "remote"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(3))

        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 12)
        #expect(bad.stdout.contains("answered 3"), "the bad worker was given too few items: \(bad.stdout)")
        // A good verdict is audited only now and then: these must be caught without.
        #expect(liar.stdout.contains("verdict 2"), "the liar was asked too few checks: \(liar.stdout)")

        let status = try cluster.status()
        #expect(status.workers.first { $0.workerID == "bad-worker" }?.quarantined == true, "\(status.workers)")
        let honest = try #require(status.workers.first { $0.workerID == "honest" })
        #expect(honest.quarantined == nil && honest.refusedResults == 0, "\(status.workers)")
        #expect(cluster.coordinator.isRunning)
    }

    @Test("a verifier that never answers: past the deadline the coordinator checks, and the verifier is not asked again",
          .enabled(if: CurveTests.pyzmq != nil, "needs python3 with pyzmq (python3-zmq; make deps installs it)"))
    func silentVerifier() throws {
        let python = try #require(CurveTests.pyzmq)
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 4, bytesPerFile: 1 << 20)
        let keys = try CurveKeys.principals(["silent", "honest"], in: tree)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--item-size", "1M", "--block-size", "256K"],
                                      clientArguments: keys.clientArguments("client"))
        let silent = try cluster.startHostileWorker(python: python, id: "silent", slots: 1, mode: "verify-silent", in: tree.root,
                                                    environment: keys.hostileEnvironment("silent"))
        try #require(cluster.waitForWorkers(1), "the Python worker did not register: \(silent.stderr)")
        try cluster.addWorker(slots: 1, id: "honest", arguments: ["--storage", "remote"] + keys.clientArguments("honest"))
        try #require(cluster.waitForWorkers(2))
        let started = ContinuousClock.now
        let outcome = try cluster.submitAndWait(["src", "--level", "6"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/src.squeezed")) == 4)
        // One deadline (10 s), not one per item: after it the silent worker is passed over.
        #expect(ContinuousClock.now - started < .seconds(40))
        let status = try cluster.status()
        let asked = silent.stdout.components(separatedBy: "ignored").count - 1
        #expect(asked >= 1 && asked == status.checksByWorkers, "\(silent.stdout) \(status)")
        #expect((status.checksByCoordinator ?? 0) >= 4, "\(status)")
        #expect(status.workers.first { $0.workerID == "silent" }?.quarantined == nil)
        #expect(cluster.coordinator.stderr.contains("verifier did not answer in time"))
        // A second job goes without it from the start.
        #expect(try cluster.submitAndWait(["src", "-o", "again", "--level", "6"]).status == 0)
        #expect(silent.stdout.components(separatedBy: "ignored").count - 1 == asked)
    }

    @Test("shared storage: two workers check each other's pieces by reference, and the coordinator reads none")
    func sharedWorkersCheckEachOther() throws {
        let tree = try TestTree()
        try TestCorpus.make(at: tree.path("data/src"), files: 8, bytesPerFile: 2 << 20)
        let keys = try CurveKeys.principals(["shared-a", "shared-b"], in: tree)
        let cluster = try TestCluster(root: tree.path("data"), logs: tree.root, workers: 0,
                                      coordinatorArguments: keys.coordinatorArguments + ["--item-size", "1M", "--block-size", "256K"],
                                      clientArguments: keys.clientArguments("client"))
        try cluster.addWorker(slots: 1, id: "shared-a", arguments: ["--storage", "shared"] + keys.clientArguments("shared-a"))
        try cluster.addWorker(slots: 1, id: "shared-b", arguments: ["--storage", "shared"] + keys.clientArguments("shared-b"))
        try #require(cluster.waitForWorkers(2))
        // Level 1 (ISA-L, with dictionaries) and level 0 (blocks written in place) as well.
        for (level, name) in [("6", "out6"), ("1", "out1"), ("0", "out0")] {
            let outcome = try cluster.submitAndWait(["src", "-o", name, "--level", level])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(try TreeCheck.verify(source: tree.path("data/src"), destination: tree.path("data/\(name)")) == 8)
        }
        let status = try cluster.status()
        #expect((status.checksByWorkers ?? 0) >= 8, "\(status)")
        // Only audits (one good verdict in 16, at random; with no third principal, here) are checked here.
        #expect((status.checksByCoordinator ?? 0) <= (status.checksByWorkers ?? 0) / 4 + 2, "\(status)")
        #expect(status.refusedResults == 0)
        #expect(cluster.coordinator.isRunning)
    }
}
