import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator


private func candidate(_ id: PeerID, load: Int = 0, canVerify: Bool = true, quarantined: Bool = false, seesStorage: Bool = true) -> VerifierCandidate {
    VerifierCandidate(id: id, canVerify: canVerify, quarantined: quarantined, seesStorage: seesStorage, load: load)
}

/// Who verifies an answer, what a verdict means and which good verdicts are audited, as
/// values: no sockets.
@Suite("Verifier policy")
struct VerifierPolicyTests {
    @Test("never the compressing worker; least loaded first; ties to the smaller id")
    func leastLoadedOther() {
        let workers = [candidate(a, load: 0), candidate(b, load: 3), candidate(c, load: 1)]
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false) == c)
        #expect(VerifierChoice.choose(among: workers, compressor: c, byReference: false) == a)
        let tied = [candidate(c, load: 2), candidate(b, load: 2), candidate(a, load: 5)]
        #expect(VerifierChoice.choose(among: tied, compressor: a, byReference: false) == b)
    }

    @Test("a worker that did not announce verify, is quarantined, or (by reference) does not see the files is never chosen")
    func onlyCapableWorkers() {
        #expect(VerifierChoice.choose(among: [candidate(a), candidate(b, canVerify: false)], compressor: a, byReference: false) == nil)
        #expect(VerifierChoice.choose(among: [candidate(a), candidate(b, quarantined: true)], compressor: a, byReference: false) == nil)
        let remoteOnly = [candidate(a), candidate(b, seesStorage: false)]
        #expect(VerifierChoice.choose(among: remoteOnly, compressor: a, byReference: true) == nil)
        #expect(VerifierChoice.choose(among: remoteOnly, compressor: a, byReference: false) == b)
        var late = candidate(b)
        late.late = true
        #expect(VerifierChoice.choose(among: [candidate(a), late], compressor: a, byReference: false) == nil)
        // Alone: the coordinator checks itself.
        #expect(VerifierChoice.choose(among: [candidate(a)], compressor: a, byReference: false) == nil)
    }

    @Test("verifiers excluded for this check are passed over")
    func excluded() {
        let workers = [candidate(a), candidate(b, load: 0), candidate(c, load: 9)]
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false, excluding: [b]) == c)
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false, excluding: [b, c]) == nil)
    }

    @Test("a verdict is good only when every block decoded to its claim (and, by reference, the source agrees)")
    func reading() {
        let decoded = VerifyFinding(outcome: .decoded, crc: 7)
        #expect(VerdictReading.read([decoded, decoded], claims: [7, 7], byReference: [false, false]) == .good)
        // A verifier that did not decode cannot know the CRC: a wrong one is a "bad" verdict.
        guard case .bad = VerdictReading.read([decoded, VerifyFinding(outcome: .decoded, crc: 8)], claims: [7, 7], byReference: [false, false]) else {
            Issue.record("a wrong CRC read as good")
            return
        }
        guard case .bad = VerdictReading.read([VerifyFinding(outcome: .defect, reason: "x")], claims: [7], byReference: [false]) else {
            Issue.record("a defect read as good")
            return
        }
        // By reference the source CRC the verifier read must agree too.
        #expect(VerdictReading.read([VerifyFinding(outcome: .decoded, crc: 7, sourceCRC: 7)], claims: [7], byReference: [true]) == .good)
        guard case .bad = VerdictReading.read([VerifyFinding(outcome: .decoded, crc: 7, sourceCRC: 9)], claims: [7], byReference: [true]) else {
            Issue.record("a source CRC that differs read as good")
            return
        }
        guard case .unreadable = VerdictReading.read([VerifyFinding(outcome: .unreadable, reason: "gone")], claims: [7], byReference: [true]) else {
            Issue.record("unreadable read otherwise")
            return
        }
        // Too few or too many findings is a bad verdict, never a good one.
        guard case .bad = VerdictReading.read([decoded], claims: [7, 7], byReference: [false, false]) else {
            Issue.record("a short report read as good")
            return
        }
    }

    @Test("one good verdict in the interval is audited, drawn at random; an interval of 0 or 1 audits all")
    func audit() {
        let audit = VerifierAudit(interval: 4)
        let drawn: [UInt64] = Array(0..<12)
        #expect(drawn.filter { audit.shouldAudit(roll: $0) } == [0, 4, 8])
        #expect(audit.shouldAudit(roll: UInt64.max - 3))
        #expect(!audit.shouldAudit(roll: UInt64.max))
        let rolls: [UInt64] = [0, 1, 7, UInt64.max]
        for interval in [0, 1] {
            let every = VerifierAudit(interval: interval)
            #expect(rolls.filter { every.shouldAudit(roll: $0) } == rolls)
        }
    }
}
