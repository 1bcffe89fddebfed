import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

@Suite("WorkerRoster: how each worker gets at each job's files")
struct WorkerStorageTests {
    let start = ContinuousClock.now

    func roster(_ modes: [(PeerID, StorageMode?)]) -> WorkerRoster {
        var roster = WorkerRoster(heartbeatInterval: .seconds(1), liveness: 3)
        for (peer, mode) in modes {
            roster.register(peer, hello: WorkerHello(workerID: String(decoding: peer.bytes, as: UTF8.self), host: "h", slots: 1, pid: 1, storage: mode), at: start)
        }
        return roster
    }

    @Test("a worker's announced mode decides at once, once per job; auto probes, and only once the job has a file")
    func decidedOnce() {
        var workers = roster([(a, .shared), (b, .remote), (c, .auto)])
        #expect(workers.startStorage(of: a, job: 1, archive: false, canProbe: true, at: start) == .shared)
        #expect(workers.startStorage(of: a, job: 1, archive: false, canProbe: true, at: start) == nil)
        #expect(workers[a]?.isShared(for: 1) == true)
        #expect(workers.startStorage(of: b, job: 1, archive: false, canProbe: true, at: start) == .remote)
        #expect(workers.startStorage(of: c, job: 1, archive: false, canProbe: false, at: start) == nil, "nothing to probe yet")
        #expect(workers[c]?.jobStorage[1] == nil)
        #expect(workers.startStorage(of: c, job: 1, archive: false, canProbe: true, at: start) == .probe)
        #expect(workers[c]?.jobStorage[1] == .probing(start))
        #expect(workers.startStorage(of: "9", job: 1, archive: false, canProbe: true, at: start) == nil, "unknown peer")
    }

    @Test("an archive's blocks travel in messages to every worker, whatever it announced")
    func archiveIsRemote() {
        var workers = roster([(a, .shared), (c, .auto)])
        #expect(workers.startStorage(of: a, job: 2, archive: true, canProbe: true, at: start) == .archive)
        #expect(workers.startStorage(of: c, job: 2, archive: true, canProbe: true, at: start) == .archive)
        #expect(workers[a]?.jobStorage[2] == .remote && workers[c]?.jobStorage[2] == .remote)
    }

    @Test("a probe's answer counts once, and only while the probe waits")
    func probeAnswer() {
        var workers = roster([(a, .auto), (b, .auto)])
        _ = workers.startStorage(of: a, job: 1, archive: false, canProbe: true, at: start)
        _ = workers.startStorage(of: b, job: 1, archive: false, canProbe: true, at: start)
        #expect(workers.probeAnswered(by: a, job: 1, view: .same) == true)
        #expect(workers[a]?.isShared(for: 1) == true)
        #expect(workers.probeAnswered(by: a, job: 1, view: nil) == false, "a second answer changes nothing")
        #expect(workers[a]?.isShared(for: 1) == true)
        #expect(workers.probeAnswered(by: b, job: 1, view: nil) == true)
        #expect(workers[b]?.jobStorage[1] == .remote)
        #expect(workers.probeAnswered(by: b, job: 7, view: .same) == false, "no probe for that job")
    }

    @Test("a probe unanswered past its timeout makes the worker remote for that job")
    func probeExpires() {
        var workers = roster([(a, .auto), (b, .auto)])
        _ = workers.startStorage(of: a, job: 1, archive: false, canProbe: true, at: start)
        _ = workers.startStorage(of: b, job: 1, archive: false, canProbe: true, at: start + .seconds(1))
        _ = workers.startStorage(of: b, job: 2, archive: false, canProbe: true, at: start)
        #expect(workers.expireProbes(at: start + JobStorage.probeTimeout).isEmpty)
        let expired = workers.expireProbes(at: start + JobStorage.probeTimeout + .milliseconds(1))
        #expect(expired.map(\.peer) == [a, b] && expired.map(\.job) == [1, 2])
        #expect(workers[a]?.jobStorage[1] == .remote && workers[b]?.jobStorage[2] == .remote)
        #expect(workers[b]?.jobStorage[1] == .probing(start + .seconds(1)))
        #expect(workers.probeAnswered(by: a, job: 1, view: .same) == false, "too late: it stays remote")
        workers.forget(job: 1)
        #expect(workers[b]?.jobStorage[1] == nil && workers[b]?.jobStorage[2] == .remote)
    }
}
