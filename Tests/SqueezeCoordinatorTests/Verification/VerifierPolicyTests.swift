import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator


private func candidate(_ id: PeerID, load: Int = 0, canVerify: Bool = true, quarantined: Bool = false, seesStorage: Bool = true,
                       principal: Principal? = nil) -> VerifierCandidate {
    VerifierCandidate(id: id, principal: principal ?? own(id), canVerify: canVerify, quarantined: quarantined, seesStorage: seesStorage, load: load)
}

/// A principal of its own for `id`: an address and a process no other test worker has.
private func own(_ id: PeerID) -> Principal {
    Principal(origin: ConnectionOrigin(address: "10.0.0.\(id.description)"), host: "host-\(id.description)", pid: 1)
}

/// Who verifies an answer, what a verdict means and which good verdicts are audited, as
/// values: no sockets.
@Suite("Verifier policy")
struct VerifierPolicyTests {
    @Test("never the compressing worker; least loaded first; ties to the smaller id")
    func leastLoadedOther() {
        let workers = [candidate(a, load: 0), candidate(b, load: 3), candidate(c, load: 1)]
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false, independentOf: [own(a)]) == c)
        #expect(VerifierChoice.choose(among: workers, compressor: c, byReference: false, independentOf: [own(c)]) == a)
        let tied = [candidate(c, load: 2), candidate(b, load: 2), candidate(a, load: 5)]
        #expect(VerifierChoice.choose(among: tied, compressor: a, byReference: false, independentOf: [own(a)]) == b)
    }

    @Test("a worker that did not announce verify, is quarantined, or (by reference) does not see the files is never chosen")
    func onlyCapableWorkers() {
        #expect(VerifierChoice.choose(among: [candidate(a), candidate(b, canVerify: false)], compressor: a, byReference: false, independentOf: [own(a)]) == nil)
        #expect(VerifierChoice.choose(among: [candidate(a), candidate(b, quarantined: true)], compressor: a, byReference: false, independentOf: [own(a)]) == nil)
        let remoteOnly = [candidate(a), candidate(b, seesStorage: false)]
        #expect(VerifierChoice.choose(among: remoteOnly, compressor: a, byReference: true, independentOf: [own(a)]) == nil)
        #expect(VerifierChoice.choose(among: remoteOnly, compressor: a, byReference: false, independentOf: [own(a)]) == b)
        var late = candidate(b)
        late.late = true
        #expect(VerifierChoice.choose(among: [candidate(a), late], compressor: a, byReference: false, independentOf: [own(a)]) == nil)
        // Alone: the coordinator checks itself.
        #expect(VerifierChoice.choose(among: [candidate(a)], compressor: a, byReference: false, independentOf: [own(a)]) == nil)
    }

    @Test("verifiers excluded for this check are passed over")
    func excluded() {
        let workers = [candidate(a), candidate(b, load: 0), candidate(c, load: 9)]
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false, independentOf: [own(a)], excluding: [b]) == c)
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false, independentOf: [own(a)], excluding: [b, c]) == nil)
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

/// The choice under the rule of independent principals.
@Suite("Verifier policy: principals")
struct VerifierPrincipalTests {
    @Test("a worker of the compressor's principal is never its verifier; the coordinator checks, and says why")
    func sharedPrincipal() {
        let party = Principal(origin: ConnectionOrigin(address: "192.0.2.1"), host: "one", pid: 1)
        let sibling = Principal(origin: ConnectionOrigin(address: "192.0.2.1"), host: "two", pid: 2)
        let workers = [candidate(a, principal: party), candidate(b, principal: sibling)]
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false, independentOf: [party]) == nil)
        #expect(VerifierChoice.lacksIndependence(among: workers, compressor: a, byReference: false))
        // A worker that cannot verify anyway is not a lack of independence.
        #expect(!VerifierChoice.lacksIndependence(among: [candidate(a), candidate(b, canVerify: false)], compressor: a, byReference: false))
    }

    @Test("an audit goes to a third principal: neither the compressor's nor the verifier's")
    func audit() {
        let workers = [candidate(a), candidate(b), candidate(c, load: 5)]
        #expect(VerifierChoice.choose(among: workers, compressor: a, byReference: false, independentOf: [own(a), own(b)]) == c)
        #expect(VerifierChoice.choose(among: [candidate(a), candidate(b)], compressor: a, byReference: false, independentOf: [own(a), own(b)]) == nil)
    }

    @Test("vouchers the coordinator cannot place (a worker that left) leave the check to the coordinator")
    func unknownVoucher() {
        #expect(VerifierChoice.choose(among: [candidate(a), candidate(b)], compressor: a, byReference: false, independentOf: nil) == nil)
    }

    @Test("one verdict in 16 is audited: a pair cheating on each of 100 items is caught with probability at least 99 %")
    func auditRate() {
        let audit = VerifierAudit()
        #expect(audit.interval == 16)
        // The odds, exactly: 1 - (15/16)^100.
        var missed = 1.0
        for _ in 0..<100 { missed *= 15.0 / 16.0 }
        #expect(1 - missed >= 0.99)
        // And drawn as the coordinator draws: 2,000 jobs of 100 items each.
        var generator = SystemRandomNumberGenerator()
        var caught = 0
        for _ in 0..<2000 where (0..<100).contains(where: { _ in audit.shouldAudit(roll: generator.next()) }) { caught += 1 }
        #expect(caught >= 1960, "caught in \(caught) of 2,000 jobs")
    }
}
