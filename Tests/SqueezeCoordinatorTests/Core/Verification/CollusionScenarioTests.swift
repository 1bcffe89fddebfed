import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// One party with many identities, and two parties vouching for each other, through the
/// whole core: who checks, who audits, what a caught collusion does to the job.
@Suite("CoordinatorCore: principals and collusion")
struct CollusionScenarioTests {
    let verifier: PeerID = "v"
    let auditor: PeerID = "x"

    /// `peer` announces itself, able to verify, from `origin`.
    @discardableResult
    func registerVerifier(_ peer: PeerID, origin: ConnectionOrigin, pid: Int32, in harness: inout CoreHarness) -> [CoordinatorEffect] {
        let hello = WorkerHello(workerID: "\(peer)", host: "h", slots: 1, pid: pid, engines: CompressionEngine.allCases.map(\.rawValue),
                                storage: .remote, capabilities: [WorkerHello.verifyCapability])
        return harness.handle(.workerMessage(.workerReady(hello), from: peer, origin: origin), at: .zero)
    }

    /// `a` (four slots, from `origin`) answers the first item of a checked one-file job, its
    /// source read as CRC 7; returns the job and what the core did with the answer.
    func answer(from origin: ConnectionOrigin, in harness: inout CoreHarness) throws -> (JobID, [CoordinatorEffect]) {
        let hello = WorkerHello(workerID: "a", host: "h", slots: 4, pid: 1, engines: CompressionEngine.allCases.map(\.rawValue), storage: .remote)
        harness.handle(.workerMessage(.workerReady(hello), from: a, origin: origin), at: .zero)
        let (job, started) = try harness.startJob(sizes: [4096], verify: true)
        let item = try #require(started.dispatches.first { $0.routingID == a })
        harness.handle(.read(item, sources: [item.blocks[0].ref: SourceBlock(crc: 7, dictionary: [])]), at: .milliseconds(1))
        let result = WorkResult(jobID: job.value, itemID: item.item.value, blocks: [ResultBlock(crc: 7, rawLength: 4096, bytes: ZMQFrame([3, 0]))])
        return (job, harness.handle(.workerMessage(.result(result), from: a, origin: nil), at: .milliseconds(2)))
    }

    func verifies(_ effects: [CoordinatorEffect], to peer: PeerID) -> VerifyRequest? {
        effects.sent.compactMap { if case .verify(let request) = $0.message, $0.peer == peer { request } else { nil } }.first
    }

    func checksLocally(_ effects: [CoordinatorEffect]) -> VerificationRequest? {
        effects.compactMap { if case .check(.answer(let request)) = $0 { request } else { nil } }.first
    }

    @Test("one process under two worker ids without keys (one address): its answers are checked by the coordinator, never by itself")
    func onePartyTwoIDs() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        registerVerifier(verifier, origin: ConnectionOrigin(address: "192.0.2.1"), pid: 2, in: &harness)
        let (_, effects) = try answer(from: ConnectionOrigin(address: "192.0.2.1"), in: &harness)
        #expect(verifies(effects, to: verifier) == nil)
        #expect(checksLocally(effects) != nil)
        #expect(harness.core.verification.checkedForIndependence == 1 && harness.core.verification.checkedByWorkers == 0)
    }

    @Test("one CURVE key under two ids at two addresses is one principal; two keys at one address are two")
    func keys() throws {
        var shared = CoreHarness()
        defer { shared.cleanUp() }
        registerVerifier(verifier, origin: ConnectionOrigin(key: "fleet", address: "192.0.2.2"), pid: 2, in: &shared)
        let (_, alone) = try answer(from: ConnectionOrigin(key: "fleet", address: "192.0.2.1"), in: &shared)
        #expect(verifies(alone, to: verifier) == nil && checksLocally(alone) != nil)

        var separate = CoreHarness()
        defer { separate.cleanUp() }
        registerVerifier(verifier, origin: ConnectionOrigin(key: "w2", address: "192.0.2.9"), pid: 2, in: &separate)
        let (_, checked) = try answer(from: ConnectionOrigin(key: "w1", address: "192.0.2.9"), in: &separate)
        #expect(verifies(checked, to: verifier) != nil && checksLocally(checked) == nil)
    }

    @Test("an audited good verdict goes to a third principal; confirmed bad, both colluders are quarantined and the job waits for a pass over its outputs")
    func auditByThirdPrincipal() throws {
        var configuration = CoreHarness.configuration()
        configuration.auditInterval = 16
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: 0))
        defer { harness.cleanUp() }
        registerVerifier(verifier, origin: ConnectionOrigin(key: "k2"), pid: 2, in: &harness)
        registerVerifier(auditor, origin: ConnectionOrigin(key: "k3"), pid: 3, in: &harness)
        let (job, effects) = try answer(from: ConnectionOrigin(key: "k1"), in: &harness)
        let first = try #require(verifies(effects, to: verifier))
        // The colluding verifier says good: drawn for an audit, the check goes to the third.
        let vouched = harness.handle(.workerMessage(.verified(VerifyReport(checkID: first.checkID, findings: [VerifyFinding(outcome: .decoded, crc: 7)])),
                                                    from: verifier, origin: nil), at: .milliseconds(3))
        #expect(!vouched.writes.contains { if case .blocks = $0.command { true } else { false } })
        let audit = try #require(verifies(vouched, to: auditor))
        #expect(harness.core.verification.auditsByWorkers == 1 && harness.core.verification.auditsLocally == 0)
        // The auditor says bad: confirmed here, then both are quarantined, the auditor is not.
        let contested = harness.handle(.workerMessage(.verified(VerifyReport(checkID: audit.checkID, findings: [VerifyFinding(outcome: .defect, reason: "garbage")])),
                                                      from: auditor, origin: nil), at: .milliseconds(4))
        let local = try #require(checksLocally(contested))
        #expect(local.verdict == .auditContested(verifier: verifier, auditor: auditor))
        harness.handle(.answerChecked(local, BlockDefect("does not decode")), at: .milliseconds(5))
        let quarantine = harness.core.verification.quarantine
        #expect(quarantine.isQuarantined(harness.core.verification.identity(of: a)))
        #expect(quarantine.isQuarantined(harness.core.verification.identity(of: verifier)))
        #expect(!quarantine.isQuarantined(harness.core.verification.identity(of: auditor)))
        #expect(harness.core.verification.collusionsCaught == 1)
        // The job had nothing accepted on their word yet: no pass needed for it.
        #expect(harness.core.jobs[job]?.suspicions == 0)
    }

    @Test("an auditor calling a good answer bad gets the strike, and the answer is written")
    func lyingAuditor() throws {
        var harness = CoreHarness(CoreHarness.configuration(), rolls: FixedRolls(value: 0))
        defer { harness.cleanUp() }
        registerVerifier(verifier, origin: ConnectionOrigin(key: "k2"), pid: 2, in: &harness)
        registerVerifier(auditor, origin: ConnectionOrigin(key: "k3"), pid: 3, in: &harness)
        let (_, effects) = try answer(from: ConnectionOrigin(key: "k1"), in: &harness)
        let first = try #require(verifies(effects, to: verifier))
        let vouched = harness.handle(.workerMessage(.verified(VerifyReport(checkID: first.checkID, findings: [VerifyFinding(outcome: .decoded, crc: 7)])),
                                                    from: verifier, origin: nil), at: .milliseconds(3))
        let audit = try #require(verifies(vouched, to: auditor))
        let contested = harness.handle(.workerMessage(.verified(VerifyReport(checkID: audit.checkID, findings: [VerifyFinding(outcome: .defect, reason: "lie")])),
                                                      from: auditor, origin: nil), at: .milliseconds(4))
        let checked = harness.handle(.answerChecked(try #require(checksLocally(contested)), nil), at: .milliseconds(5))
        #expect(checked.writes.contains { if case .blocks = $0.command { true } else { false } })
        #expect(harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: auditor)) == 1)
        #expect(harness.core.verification.collusionsCaught == 0)
    }

    @Test("a caught collusion among a job's vouchers holds its completion for one pass over its outputs, and a catch during the pass for another")
    func recheckBeforeCompletion() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a)
        let (job, _) = try harness.startJob(sizes: [10], verify: true)
        harness.core.recordVouching([a], job: job)
        harness.core.suspect([harness.core.verification.identity(of: b)], in: job)
        #expect(harness.core.jobs[job]?.suspicions == 0, "b vouched for nothing in it")
        harness.core.suspect([harness.core.verification.identity(of: a)], in: job)
        #expect(harness.core.awaitsRecheck(job) == true)
        let passes = harness.core.takeEffects().compactMap { if case .check(.outputs(let recheck)) = $0 { recheck } else { nil } }
        #expect(passes.count == 1 && passes.first?.job == job && passes.first?.singleFile == nil)
        // While it runs, the job waits, and no second pass starts; a catch meanwhile needs one more.
        #expect(harness.core.awaitsRecheck(job) == true)
        harness.core.suspect([harness.core.verification.identity(of: a)], in: job)
        #expect(harness.core.takeEffects().isEmpty == true)
        harness.handle(.outputsRechecked(job, OutputRecheck.Outcome(checked: 1, redone: [], failures: [])), at: .milliseconds(1))
        #expect(harness.core.jobs[job]?.message?.contains("checked 1 outputs again") == true)
        #expect(harness.core.awaitsRecheck(job) == true, "the second catch came after the first pass began")
        harness.handle(.outputsRechecked(job, OutputRecheck.Outcome(checked: 1, redone: [BytePath(bytes: Array("f0".utf8))], failures: [])), at: .milliseconds(2))
        #expect(harness.core.awaitsRecheck(job) == false)
        #expect(harness.core.verification.outputsRechecked == 2 && harness.core.verification.outputsRedone == 1)
    }
}
