import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

private func check(_ id: UInt64, job: UInt64 = 1) -> VerifyRequest {
    VerifyRequest(checkID: id, jobID: job, itemID: id, blocks: [])
}

/// Checks that wait for the next dispatch to their verifier, as values: no sockets.
@Suite("Outgoing checks")
struct OutgoingChecksTests {
    @Test("a check of references waits only for a verifier that has an item out; one that carries bytes never waits")
    func holdsOnlyForBusyVerifiers() {
        #expect(!OutgoingChecks.shouldHold(verifierInFlight: 0, carriesBytes: false))
        #expect(OutgoingChecks.shouldHold(verifierInFlight: 1, carriesBytes: false))
        #expect(OutgoingChecks.shouldHold(verifierInFlight: 4, carriesBytes: false))
        #expect(!OutgoingChecks.shouldHold(verifierInFlight: 0, carriesBytes: true))
        #expect(!OutgoingChecks.shouldHold(verifierInFlight: 4, carriesBytes: true))
    }

    @Test("a dispatch takes its verifier's checks, in order, and only those")
    func takeByVerifier() {
        var outgoing = OutgoingChecks()
        outgoing.hold(check(1), for: a)
        outgoing.hold(check(2), for: b)
        outgoing.hold(check(3), for: a)
        #expect(outgoing.take(for: a).map(\.checkID) == [1, 3])
        #expect(outgoing.take(for: a).isEmpty)
        #expect(!outgoing.isEmpty)
        #expect(outgoing.take(for: b).map(\.checkID) == [2])
        #expect(outgoing.isEmpty)
    }

    @Test("the tick takes every waiting check, once")
    func takeAll() {
        var outgoing = OutgoingChecks()
        outgoing.hold(check(1), for: a)
        outgoing.hold(check(2), for: b)
        outgoing.hold(check(3), for: b)
        let all = outgoing.takeAll().sorted { $0.verifier < $1.verifier }
        #expect(all.map(\.verifier) == [a, b])
        #expect(all.map { $0.requests.map(\.checkID) } == [[1], [2, 3]])
        #expect(outgoing.isEmpty)
        #expect(outgoing.takeAll().isEmpty)
    }

    @Test("an ended job's checks and a departed verifier's are dropped, the rest kept")
    func forget() {
        var outgoing = OutgoingChecks()
        outgoing.hold(check(1, job: 1), for: a)
        outgoing.hold(check(2, job: 2), for: a)
        outgoing.hold(check(3, job: 1), for: b)
        outgoing.hold(check(4, job: 2), for: c)
        outgoing.forget(job: 1)
        #expect(outgoing.take(for: b).isEmpty)
        outgoing.forget(verifier: c)
        #expect(outgoing.take(for: c).isEmpty)
        #expect(outgoing.take(for: a).map(\.checkID) == [2])
        #expect(outgoing.isEmpty)
    }
}
