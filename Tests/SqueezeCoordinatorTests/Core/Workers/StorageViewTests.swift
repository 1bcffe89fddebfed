import Foundation
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// A worker that answers a probe "shared" is confirmed by the coordinator's own reads before
/// it gets references, and its items say what of the stamps it compares.
@Suite("CoordinatorCore: shared storage by probe, not by inode numbers")
struct StorageViewTests {
    /// An answer over a FUSE file system: its own inode numbers, mtimes to the second.
    static let fuse = SharedView(inodes: false, nanoseconds: false)

    /// The confirmation among `effects`.
    static func confirmation(in effects: [CoordinatorEffect]) -> StorageConfirmation? {
        for effect in effects {
            if case .check(.storage(let confirmation)) = effect { return confirmation }
        }
        return nil
    }

    static func reply(_ job: JobID, answer: String = "answer-1f2e", view: SharedView = fuse, crc: UInt32 = 7) -> WireMessage {
        var reply = ProbeReply(jobID: job.value, shared: true)
        reply.answer = answer
        reply.view = view
        reply.sampleCRC = crc
        return .probeReply(reply)
    }

    @Test("a shared answer with an answer file waits for the coordinator's reads; confirmed, references go out with the worker's view, which a later job over the root reuses")
    func confirmed() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, storage: .auto)
        let (job, _) = try harness.startJob(sizes: [4096])
        let answered = harness.handle(.workerMessage(Self.reply(job), from: a, origin: nil), at: .milliseconds(5))
        let confirmation = try #require(Self.confirmation(in: answered))
        #expect(!answered.sent.contains { if case .workRef = $0.message { true } else { false } } && answered.dispatches.isEmpty)
        #expect(confirmation.peer == a && confirmation.job == job && confirmation.view == Self.fuse && confirmation.sampleCRC == 7)
        #expect(confirmation.answer.display.hasSuffix("/answer-1f2e") && !confirmation.token.isEmpty)
        #expect(confirmation.sample?.size == 4096)

        let confirmed = harness.handle(.storageConfirmed(confirmation, failure: nil), at: .milliseconds(6))
        let work = try #require(confirmed.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }.first)
        #expect(work.view == Self.fuse)
        #expect(harness.core.workers[a]?.view(for: job) == Self.fuse)

        let (second, again) = try harness.startJob(sizes: [], sameSourceAs: harness.lastFolder, sameDestination: true, at: .milliseconds(10))
        #expect(!again.sent.contains { if case .probe = $0.message { true } else { false } })
        #expect(harness.core.workers[a]?.view(for: second) == Self.fuse)
    }

    @Test("a confirmation that fails makes the worker remote for the job: its items come in messages")
    func refused() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, storage: .auto)
        let (job, _) = try harness.startJob(sizes: [4096])
        let confirmation = try #require(Self.confirmation(in: harness.handle(.workerMessage(Self.reply(job), from: a, origin: nil), at: .milliseconds(5))))
        let remote = harness.handle(.storageConfirmed(confirmation, failure: "the worker reads other bytes"), at: .milliseconds(6))
        #expect(remote.dispatches.count == 1 && !remote.sent.contains { if case .workRef = $0.message { true } else { false } })
        #expect(harness.core.workers[a]?.isShared(for: job) == false)
        // A confirmation arriving twice changes nothing.
        harness.handle(.storageConfirmed(confirmation, failure: nil), at: .milliseconds(7))
        #expect(harness.core.workers[a]?.isShared(for: job) == false)
    }

    @Test("an answer file name with a path in it is malformed and never opened: the worker is remote")
    func badAnswerName() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        harness.register(a, storage: .auto)
        let (job, _) = try harness.startJob(sizes: [4096])
        let answered = harness.handle(.workerMessage(Self.reply(job, answer: "answer-../../etc"), from: a, origin: nil), at: .milliseconds(5))
        #expect(Self.confirmation(in: answered) == nil)
        #expect(harness.core.malformedMessages == 1 && answered.dispatches.count == 1)
    }

    @Test("a verify item for a verifier with its own view of the files says so in each reference")
    func verifyCarriesView() {
        let reference = VerifyReference(
            sourcePath: Array("/s".utf8), size: 10, modifiedSeconds: 1, modifiedNanoseconds: 2, inode: 3, sourceOffset: 0, dictionaryLength: 0,
            rawLength: 10, isLast: true, compressedPath: Array("/c".utf8), compressedOffset: 0, compressedLength: 5, header: nil)
        var request = VerifyRequest(checkID: 1, jobID: 1, itemID: 0, blocks: [.reference(reference), .range(VerifyRange(path: Array("/r".utf8), offset: 0, length: 1))])
        request.setView(Self.fuse)
        guard case .reference(let viewed) = request.blocks[0] else {
            Issue.record("not a reference")
            return
        }
        #expect(viewed.view == Self.fuse)
    }
}
