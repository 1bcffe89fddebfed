import SqueezeGzip
import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// An answer checked by another worker, through the whole core: who may answer the check,
/// what a good and a bad verdict lead to, and who gets the strike.
@Suite("CoordinatorCore: answers checked by a verifier")
struct VerificationScenarioTests {
    let verifier: PeerID = "verifier"

    /// A core where `a` (four slots) compresses and `verifier` (one slot) can check; every good
    /// verdict is audited, or none.
    func harness(audited: Bool = false) -> CoreHarness {
        var configuration = CoreHarness.configuration()
        configuration.auditInterval = 256
        // A draw of 1 is never a multiple of 256; one of 0 always is.
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: audited ? 0 : 1))
        harness.register(a, slots: 4)
        let hello = WorkerHello(workerID: "verifier", host: "h", slots: 1, pid: 9, engines: CompressionEngine.allCases.map(\.rawValue),
                                storage: .remote, capabilities: [WorkerHello.verifyCapability])
        harness.handle(.workerMessage(.workerReady(hello), from: verifier, origin: CoreHarness.origin(of: verifier)), at: .zero)
        return harness
    }

    /// Starts a checked one-file job, reads its item for `a` (source CRC 7) and has `a` answer
    /// it claiming CRC 7: returns the job, the item and the `verify` sent to the verifier.
    func answered(_ harness: inout CoreHarness) throws -> (JobID, Dispatch, VerifyRequest) {
        let (job, started) = try harness.startJob(sizes: [4096], verify: true)
        let item = try #require(started.dispatches.first { $0.routingID == a })
        harness.handle(.read(item, sources: [item.blocks[0].ref: SourceBlock(crc: 7, dictionary: [])]), at: .milliseconds(1))
        let answer = WorkResult(jobID: job.value, itemID: item.item.value, blocks: [ResultBlock(crc: 7, rawLength: 4096, bytes: ZMQFrame([3, 0]))])
        let effects = harness.handle(.workerMessage(.result(answer), from: a, origin: nil), at: .milliseconds(2))
        let verify = try #require(effects.sent.compactMap { if case .verify(let request) = $0.message, $0.peer == verifier { request } else { nil } }.first)
        #expect(effects.writes.isEmpty, "nothing is written before the check")
        return (job, item, verify)
    }

    @Test("a good verdict from the verifier hands the answer to its writer")
    func goodVerdict() throws {
        var harness = harness()
        defer { harness.cleanUp() }
        let (_, _, verify) = try answered(&harness)
        let report = VerifyReport(checkID: verify.checkID, findings: [VerifyFinding(outcome: .decoded, crc: 7)])
        let effects = harness.handle(.workerMessage(.verified(report), from: verifier, origin: nil), at: .milliseconds(3))
        #expect(effects.writes.contains { if case .blocks = $0.command { true } else { false } })
        #expect(harness.core.verification.pending.isEmpty)
    }

    @Test("a verdict from a worker the check did not go to is malformed and changes nothing")
    func foreignVerdict() throws {
        var harness = harness()
        defer { harness.cleanUp() }
        let (_, _, verify) = try answered(&harness)
        let report = VerifyReport(checkID: verify.checkID, findings: [VerifyFinding(outcome: .decoded, crc: 7)])
        let effects = harness.handle(.workerMessage(.verified(report), from: a, origin: nil), at: .milliseconds(3))
        #expect(harness.core.malformedMessages == 1)
        #expect(effects.writes.isEmpty && harness.core.verification.pending.count == 1)
    }

    @Test("a bad verdict is confirmed by the coordinator first: if the answer is good after all, the verifier gets the strike")
    func contestedVerdict() throws {
        var harness = harness()
        defer { harness.cleanUp() }
        let (_, _, verify) = try answered(&harness)
        let report = VerifyReport(checkID: verify.checkID, findings: [VerifyFinding(outcome: .defect, reason: "garbage")])
        let effects = harness.handle(.workerMessage(.verified(report), from: verifier, origin: nil), at: .milliseconds(3))
        let local = try #require(effects.compactMap { if case .check(.answer(let request)) = $0 { request } else { nil } }.first)
        #expect(effects.writes.isEmpty)
        let checked = harness.handle(.answerChecked(local, nil), at: .milliseconds(4))
        #expect(checked.writes.contains { if case .blocks = $0.command { true } else { false } })
        #expect(harness.core.verification.quarantine.strikes(of: verifier.bytes) == 1)
        #expect(harness.core.verification.quarantine.strikes(of: a.bytes) == 0)
    }

    @Test("a bad verdict the coordinator confirms strikes the compressor, and its item goes to another worker")
    func confirmedBad() throws {
        var harness = harness()
        defer { harness.cleanUp() }
        let (_, item, verify) = try answered(&harness)
        let report = VerifyReport(checkID: verify.checkID, findings: [VerifyFinding(outcome: .defect, reason: "garbage")])
        let effects = harness.handle(.workerMessage(.verified(report), from: verifier, origin: nil), at: .milliseconds(3))
        let local = try #require(effects.compactMap { if case .check(.answer(let request)) = $0 { request } else { nil } }.first)
        let refused = harness.handle(.answerChecked(local, BlockDefect("does not decode")), at: .milliseconds(4))
        #expect(refused.writes.isEmpty)
        #expect(harness.core.verification.refusedResults == 1)
        #expect(harness.core.verification.quarantine.strikes(of: a.bytes) == 1)
        #expect(harness.core.verification.quarantine.strikes(of: verifier.bytes) == 0)
        #expect(refused.dispatches.map(\.item) == [item.item] && refused.dispatches.allSatisfy { $0.routingID == verifier })
    }

    @Test("a verifier that lets its check pass the deadline is not asked again; the coordinator checks that answer itself")
    func lateVerifier() throws {
        var harness = harness()
        defer { harness.cleanUp() }
        _ = try answered(&harness)
        let deadline = harness.core.configuration.verifyDeadline
        harness.handle(.tick, at: .milliseconds(5))
        for second in 1...Int(deadline.components.seconds) + 1 {
            harness.handle(.workerMessage(.heartbeat, from: a, origin: nil), at: .seconds(second))
            harness.handle(.workerMessage(.heartbeat, from: verifier, origin: nil), at: .seconds(second))
        }
        let overdue = harness.handle(.tick, at: deadline + .seconds(1))
        #expect(overdue.contains { if case .check(.answer) = $0 { true } else { false } })
        #expect(harness.core.verification.lateVerifiers.contains(verifier.bytes))
        #expect(harness.core.verification.quarantine.strikes(of: verifier.bytes) == 0, "slow is not hostile")
    }

    @Test("a good verdict drawn for an audit is checked by the coordinator first (no third principal); a bad answer called good quarantines both")
    func audit() throws {
        var harness = harness(audited: true)
        defer { harness.cleanUp() }
        let (_, _, verify) = try answered(&harness)
        let report = VerifyReport(checkID: verify.checkID, findings: [VerifyFinding(outcome: .decoded, crc: 7)])
        let effects = harness.handle(.workerMessage(.verified(report), from: verifier, origin: nil), at: .milliseconds(3))
        #expect(effects.writes.isEmpty, "not written on the verifier's word alone")
        let local = try #require(effects.compactMap { if case .check(.answer(let request)) = $0 { request } else { nil } }.first)
        let refused = harness.handle(.answerChecked(local, BlockDefect("does not decode")), at: .milliseconds(4))
        #expect(!refused.writes.contains { if case .blocks = $0.command { true } else { false } })
        #expect(harness.core.verification.quarantine.isQuarantined(a.bytes))
        #expect(harness.core.verification.quarantine.isQuarantined(verifier.bytes))
        #expect(harness.core.verification.collusionsCaught == 1 && harness.core.verification.auditsLocally == 1)
    }
}
