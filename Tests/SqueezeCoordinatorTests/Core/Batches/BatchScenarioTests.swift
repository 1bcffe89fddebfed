import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Batches: a bundle of one-block files goes out as one `batch`, is checked with one
/// `verifyBatch` and published with one grant, with no open file per file; anything unusual
/// turns it into an ordinary bundle that the per-file rules handle.
@Suite("CoordinatorCore: batches")
struct BatchScenarioTests {
    static let capabilities = [WorkerHello.publishCapability, WorkerHello.batchesCapability, WorkerHello.verifyCapability]

    /// Workers `a` and `b` (shared, taking batches, independent), a job of four 1 KiB files in
    /// one batch, out to `a`.
    private static func batchOut(
        verify: Bool = true, audited: Bool = false, fileEvents: Bool = false, _ configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) throws -> (harness: CoreHarness, job: JobID, batch: BatchAssignment) {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        configure(&configuration)
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: audited ? 0 : 1))
        harness.register(a, slots: 4, storage: .shared, capabilities: capabilities, pid: 1)
        harness.register(b, slots: 4, storage: .shared, capabilities: capabilities, pid: 2)
        let (job, started) = try harness.startJob(sizes: [1024, 1024, 1024, 1024], verify: verify, fileEvents: fileEvents, batches: true)
        let batches = started.sent.compactMap { if case .batch(let batch) = $0.message { batch } else { nil } }
        #expect(started.sent.allSatisfy { if case .workRef = $0.message { false } else { true } }, "no reference per file")
        let batch = try #require(batches.first)
        return (harness, job, batch)
    }

    private static func answer(_ batch: BatchAssignment, crc: UInt32 = 7, failing position: Int? = nil) -> CoordinatorEvent {
        .workerMessage(.resultRef(RefResult(jobID: batch.jobID, itemID: batch.itemID, attempt: batch.attempt, pieces: batch.files.indices.map {
            $0 == position ? PieceReport(failure: "changed") : PieceReport(crc: crc, rawLength: Int(batch.files[$0].size), pieceLength: 100)
        })), from: a, origin: nil)
    }

    /// A journal in a folder of its own; `remove` deletes the folder.
    private static func scratchJournal(_ name: String) throws -> (journal: Journal, remove: @Sendable () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squeeze-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (try Journal(path: folder + "/journal.sqlite"), { try? FileManager.default.removeItem(atPath: folder) })
    }

    /// Worker `a` alone, `journal`, and an unchecked job of `count` files of 4 KiB, a batch each.
    private static func journaledBatches(_ count: Int, journal: Journal) throws -> (harness: CoreHarness, job: JobID, batches: [BatchAssignment]) {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 4 * 1024
        configuration.journal = journal
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: 1))
        harness.register(a, slots: 4, storage: .shared, capabilities: capabilities, pid: 1)
        let (job, started) = try harness.startJob(sizes: Array(repeating: 4096, count: count), verify: false, batches: true)
        let batches = started.sent.compactMap { if case .batch(let batch) = $0.message { batch } else { nil } }
        return (harness, job, batches)
    }

    private static func checks(in effects: [CoordinatorEffect]) -> [(check: BatchCheck, peer: PeerID)] {
        effects.sent.compactMap { if case .verifyBatch(let check) = $0.message { (check, $0.peer) } else { nil } }
    }

    private static func grants(in effects: [CoordinatorEffect]) -> [PublishGrant] {
        effects.sent.compactMap { if case .publish(let grant) = $0.message { grant } else { nil } }
    }

    /// `b`'s verdict on `check`: the same outcome for every file.
    private static func verdict(_ check: BatchCheck, _ outcome: VerifyOutcome, reason: String) -> CoordinatorEvent {
        .workerMessage(.verified(VerifyReport(checkID: check.checkID, findings: check.files.map { _ in
            VerifyFinding(outcome: outcome, reason: reason)
        })), from: b, origin: nil)
    }

    private static func good(_ check: BatchCheck, crc: UInt32 = 7) -> CoordinatorEvent {
        .workerMessage(.verified(VerifyReport(checkID: check.checkID, findings: check.files.map { _ in
            VerifyFinding(outcome: .decoded, crc: crc, sourceCRC: crc)
        })), from: b, origin: nil)
    }

    @Test("a batch goes out, is checked and published as one message each, and the job holds no open file for it")
    func roundTrip() throws {
        var (harness, job, batch) = try Self.batchOut()
        defer { harness.cleanUp() }
        #expect(batch.files.map { String(decoding: $0.relativePath, as: UTF8.self) } == ["f0", "f1", "f2", "f3"])
        #expect(batch.files.allSatisfy { $0.size == 1024 })
        #expect(batch.root == harness.core.jobs[job]?.sourceRoot.bytes)
        #expect(harness.core.jobs[job]?.open.isEmpty == true)
        #expect(harness.core.jobs[job]?.batchFiles == 4)

        let answered = harness.handle(Self.answer(batch), at: .milliseconds(1))
        let checks = Self.checks(in: answered)
        #expect(checks.count == 1)
        let check = try #require(checks.first)
        #expect(check.peer == b, "another principal checks it")
        #expect(check.check.pieceLengths == [100, 100, 100, 100])
        #expect(check.check.attempt == batch.attempt && check.check.files == batch.files)
        #expect(Self.grants(in: answered).isEmpty, "nothing is granted before the check")
        #expect(harness.core.jobs[job]?.open.isEmpty == true)

        let verdict = harness.handle(Self.good(check.check), at: .milliseconds(2))
        let grants = Self.grants(in: verdict)
        #expect(grants.count == 1)
        let grant = try #require(grants.first)
        #expect(grant.attempt == batch.attempt && grant.members.map(\.position) == [0, 1, 2, 3])
        let destination = try #require(harness.core.jobs[job]?.destination)
        #expect(grant.members.map { BytePath(bytes: $0.output) } == (0..<4).map { BytePath(bytes: destination.appending(BytePath("f\($0)")).bytes + Array(".gz".utf8)) })
        #expect(harness.core.jobs[job]?.filesFinished == 0)

        let done = harness.handle(.workerMessage(.published(PublishReport(jobID: job.value, itemID: batch.itemID, attempt: batch.attempt, failures: [
            PublishFailure(position: 3, reason: "output exists"),
        ])), from: a, origin: nil), at: .milliseconds(3))
        // The batch's failures go to the client as one event.
        let failed = done.events(of: job).compactMap { if case .filesFailed(let notes) = $0 { notes.entries.map(\.path) } else { nil } }
        #expect(failed == [["f3"]])
        let ended = harness.core.jobs[job]
        #expect(ended == nil || (ended?.filesFinished == 4 && ended?.filesCompressed == 3 && ended?.bytesOut == 300 && ended?.batchFiles == 0))
        #expect(ended?.phase != .running, "every file is done")
    }

    private static func localChecks(in effects: [CoordinatorEffect]) -> [BatchLocalCheck] {
        effects.compactMap { effect -> BatchLocalCheck? in
            if case .check(.batch(let check)) = effect { return check }
            return nil
        }
    }

    @Test("a verdict of bad is checked here as a batch: good, the verifier gets a strike and the batch is granted")
    func badVerdictCheckedHere() throws {
        var (harness, job, batch) = try Self.batchOut()
        defer { harness.cleanUp() }
        let check = try #require(Self.checks(in: harness.handle(Self.answer(batch), at: .milliseconds(1))).first)
        let effects = harness.handle(Self.verdict(check.check, .defect, reason: "garbage"), at: .milliseconds(2))
        let local = try #require(Self.localChecks(in: effects).first)
        #expect(local.verdict == .contested(by: b))
        #expect(local.checks().count == 4)
        #expect(harness.core.jobs[job]?.open.isEmpty == true, "still a batch")
        #expect(Self.grants(in: effects).isEmpty)
        let strikes = harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: b))
        let checked = harness.handle(.batchChecked(local, nil), at: .milliseconds(3))
        #expect(harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: b)) == strikes + 1)
        #expect(Self.grants(in: checked).map(\.attempt) == [batch.attempt])
    }

    @Test("a defect the coordinator's own check finds expands the batch and refuses the answer: its worker gets a strike, the item goes again")
    func defectFoundHere() throws {
        var (harness, job, batch) = try Self.batchOut()
        defer { harness.cleanUp() }
        let check = try #require(Self.checks(in: harness.handle(Self.answer(batch), at: .milliseconds(1))).first)
        let effects = harness.handle(Self.verdict(check.check, .unreadable, reason: "gone"), at: .milliseconds(2))
        let local = try #require(Self.localChecks(in: effects).first)
        #expect(local.verdict == .none)
        let strikes = harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: a))
        let refused = harness.handle(.batchChecked(local, BlockDefect("block 2: garbage")), at: .milliseconds(3))
        #expect(harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: a)) == strikes + 1)
        #expect(harness.core.jobs[job]?.open.count == 4, "expanded into a bundle")
        #expect(Self.grants(in: refused).isEmpty)
        let again = refused.sent.compactMap { if case .workRef(let work) = $0.message { ($0.peer, work) } else { nil } }
        #expect(again.first?.0 == b && again.first?.1.blocks.count == 4, "the bundle goes to the other worker")
    }

    @Test("with one principal the coordinator checks each batch itself, as a batch, and grants it")
    func onePrincipal() throws {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: 1))
        defer { harness.cleanUp() }
        harness.register(a, slots: 4, storage: .shared, capabilities: Self.capabilities, pid: 1)
        let (job, started) = try harness.startJob(sizes: [1024, 1024, 1024], verify: true, batches: true)
        let batch = try #require(started.sent.compactMap { if case .batch(let batch) = $0.message { batch } else { nil } }.first)
        let answered = harness.handle(Self.answer(batch), at: .milliseconds(1))
        #expect(Self.checks(in: answered).isEmpty)
        let local = try #require(Self.localChecks(in: answered).first)
        #expect(local.verdict == .none && local.files.count == 3)
        #expect(harness.core.jobs[job]?.open.isEmpty == true)
        let checked = harness.handle(.batchChecked(local, nil), at: .milliseconds(2))
        #expect(Self.grants(in: checked).count == 1)
    }

    @Test("a good verdict drawn for an audit, with no third principal, is audited here as a batch")
    func auditHere() throws {
        var (harness, job, batch) = try Self.batchOut(audited: true)
        defer { harness.cleanUp() }
        let check = try #require(Self.checks(in: harness.handle(Self.answer(batch), at: .milliseconds(1))).first)
        let effects = harness.handle(Self.good(check.check), at: .milliseconds(2))
        let local = try #require(Self.localChecks(in: effects).first)
        #expect(local.verdict == .audited(b))
        #expect(Self.grants(in: effects).isEmpty, "not granted before the audit")
        #expect(harness.core.jobs[job]?.open.isEmpty == true)
        #expect(Self.grants(in: harness.handle(.batchChecked(local, nil), at: .milliseconds(3))).count == 1)
    }

    /// `batchOut(audited: true)` with a third worker `c`, the answer in and `b`'s good verdict
    /// given: the audit's effects.
    private static func auditedByThird() throws -> (harness: CoreHarness, job: JobID, effects: [CoordinatorEffect]) {
        var (harness, job, batch) = try Self.batchOut(audited: true)
        harness.register(c, slots: 1, storage: .shared, capabilities: Self.capabilities, pid: 3, at: .milliseconds(1))
        let check = try #require(Self.checks(in: harness.handle(Self.answer(batch), at: .milliseconds(2))).first)
        #expect(check.peer == b)
        let effects = harness.handle(Self.good(check.check), at: .milliseconds(3))
        return (harness, job, effects)
    }

    /// `peer`'s verdict on `check`: good (the claimed CRC) or a defect in every file.
    private static func verdict(of peer: PeerID, on check: BatchCheck, good: Bool) -> CoordinatorEvent {
        .workerMessage(.verified(VerifyReport(checkID: check.checkID, findings: check.files.map { _ in
            good ? VerifyFinding(outcome: .decoded, crc: 7, sourceCRC: 7) : VerifyFinding(outcome: .defect, reason: "garbage")
        })), from: peer, origin: nil)
    }

    @Test("a good verdict drawn for an audit goes to a third principal as one verifyBatch, and its good verdict grants the batch")
    func auditByThirdPrincipal() throws {
        var (harness, job, effects) = try Self.auditedByThird()
        defer { harness.cleanUp() }
        let audits = Self.checks(in: effects)
        #expect(audits.count == 1 && audits.first?.peer == c)
        #expect(audits.first?.check.files.count == 4)
        #expect(effects.sent.allSatisfy { if case .verify = $0.message { false } else { true } }, "not file by file")
        #expect(Self.grants(in: effects).isEmpty, "not granted before the audit")
        #expect(harness.core.jobs[job]?.open.isEmpty == true, "the batch is not expanded")
        #expect(harness.core.verification.auditsByWorkers == 1 && harness.core.verification.auditsLocally == 0)
        let audit = try #require(audits.first?.check)
        let granted = harness.handle(Self.verdict(of: c, on: audit, good: true), at: .milliseconds(4))
        #expect(Self.grants(in: granted).count == 1)
        #expect(Self.localChecks(in: granted).isEmpty, "an audit is not audited again")
        #expect(harness.core.jobs[job]?.vouchers.contains(harness.core.verification.identity(of: c)) == true)
    }

    @Test("an auditor calling a batch bad is confirmed here: bad, its compressor and verifier are quarantined as colluders")
    func auditFindsCollusion() throws {
        var (harness, _, effects) = try Self.auditedByThird()
        defer { harness.cleanUp() }
        let audit = try #require(Self.checks(in: effects).first?.check)
        let contested = harness.handle(Self.verdict(of: c, on: audit, good: false), at: .milliseconds(4))
        #expect(Self.grants(in: contested).isEmpty)
        let local = try #require(Self.localChecks(in: contested).first)
        #expect(local.verdict == .auditContested(verifier: b, auditor: c))
        harness.handle(.batchChecked(local, BlockDefect("does not decode")), at: .milliseconds(5))
        let quarantine = harness.core.verification.quarantine
        #expect(quarantine.isQuarantined(harness.core.verification.identity(of: a)))
        #expect(quarantine.isQuarantined(harness.core.verification.identity(of: b)))
        #expect(!quarantine.isQuarantined(harness.core.verification.identity(of: c)))
        #expect(harness.core.verification.collusionsCaught == 1)
    }

    @Test("an auditor calling a good batch bad gets the strike, and the batch is granted")
    func lyingBatchAuditor() throws {
        var (harness, _, effects) = try Self.auditedByThird()
        defer { harness.cleanUp() }
        let audit = try #require(Self.checks(in: effects).first?.check)
        let local = try #require(Self.localChecks(in: harness.handle(Self.verdict(of: c, on: audit, good: false), at: .milliseconds(4))).first)
        let checked = harness.handle(.batchChecked(local, nil), at: .milliseconds(5))
        #expect(Self.grants(in: checked).count == 1)
        #expect(harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: c)) == 1)
        #expect(harness.core.verification.quarantine.strikes(of: harness.core.verification.identity(of: b)) == 0)
        #expect(harness.core.verification.collusionsCaught == 0)
    }

    @Test("an auditor that leaves, or cannot read the batch, leaves the audit to the coordinator")
    func auditorGone() throws {
        var (harness, _, effects) = try Self.auditedByThird()
        defer { harness.cleanUp() }
        _ = try #require(Self.checks(in: effects).first?.check)
        let gone = harness.handle(.workerMessage(.goodbye, from: c, origin: nil), at: .milliseconds(4))
        let local = try #require(Self.localChecks(in: gone).first)
        #expect(local.verdict == .audited(b), "still the audit of b's verdict")
        #expect(harness.core.verification.auditsLocally == 1)

        var (unread, _, unreadEffects) = try Self.auditedByThird()
        defer { unread.cleanUp() }
        let audit = try #require(Self.checks(in: unreadEffects).first?.check)
        let cannot = unread.handle(.workerMessage(.verified(VerifyReport(checkID: audit.checkID, findings: audit.files.map { _ in
            VerifyFinding(outcome: .unreadable, reason: "gone")
        })), from: c, origin: nil), at: .milliseconds(4))
        #expect(Self.localChecks(in: cannot).first?.verdict == .audited(b))
    }

    @Test("an answer naming a file it could not read expands the batch; the per-file rule tries another worker")
    func failedReadExpands() throws {
        var (harness, job, batch) = try Self.batchOut()
        defer { harness.cleanUp() }
        let effects = harness.handle(Self.answer(batch, failing: 1), at: .milliseconds(1))
        #expect(Self.checks(in: effects).isEmpty)
        #expect(harness.core.jobs[job]?.open.count == 4)
        let again = effects.sent.compactMap { if case .workRef(let work) = $0.message { ($0.peer, work) } else { nil } }
        #expect(again.first?.0 == b, "the item goes once more, to the other worker, as a bundle")
        #expect(again.first?.1.blocks.count == 4)
    }

    @Test("a batch assigned to a worker that does not take batches goes to it as an ordinary bundle")
    func remoteWorkerExpands() throws {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        var harness = CoreHarness(configuration)
        defer { harness.cleanUp() }
        harness.register(a, slots: 4, storage: .shared, capabilities: [WorkerHello.publishCapability])
        let (job, started) = try harness.startJob(sizes: [1024, 1024, 1024], batches: true)
        #expect(started.sent.allSatisfy { if case .batch = $0.message { false } else { true } })
        let work = try #require(started.sent.compactMap { if case .workRef(let work) = $0.message { work } else { nil } }.first)
        #expect(work.blocks.count == 3)
        #expect(harness.core.jobs[job]?.open.count == 3)
    }

    @Test("a worker that leaves holding a batch's grant has a writer publish the same attempt's pieces")
    func grantTakenOver() throws {
        var (harness, job, batch) = try Self.batchOut(verify: false)
        defer { harness.cleanUp() }
        let answered = harness.handle(Self.answer(batch), at: .milliseconds(1))
        #expect(Self.grants(in: answered).count == 1, "unchecked: granted at once")
        let gone = harness.handle(.workerMessage(.goodbye, from: a, origin: nil), at: .milliseconds(2))
        let members = gone.writes.flatMap { write -> [(spec: OutputSpec, piece: PieceBlock)] in
            if case .takeOver(let list) = write.command { return list }
            return []
        }
        #expect(members.count == 4)
        #expect(members.allSatisfy { $0.piece.attempt.value == batch.attempt && $0.piece.item.value == batch.itemID })
        #expect(Set(members.map(\.piece.position)) == [0, 1, 2, 3])
        #expect(harness.core.jobs[job]?.open.count == 4)
    }

    @Test("a verifier that leaves holding a batch's check has it done here, as a batch")
    func verifierLeaves() throws {
        var (harness, job, batch) = try Self.batchOut()
        defer { harness.cleanUp() }
        _ = try #require(Self.checks(in: harness.handle(Self.answer(batch), at: .milliseconds(1))).first)
        let gone = harness.handle(.workerMessage(.goodbye, from: b, origin: nil), at: .milliseconds(2))
        let local = Self.localChecks(in: gone)
        #expect(local.count == 1 && local.first?.files.count == 4)
        #expect(harness.core.jobs[job]?.open.isEmpty == true)
    }

    @Test("a verifier that lets a batch's check pass its deadline, while alive, has it done here at the next tick")
    func verifierLate() throws {
        var (harness, job, batch) = try Self.batchOut()
        defer { harness.cleanUp() }
        _ = try #require(Self.checks(in: harness.handle(Self.answer(batch), at: .milliseconds(1))).first)
        // Both workers keep beating: the check is taken back for its deadline, not a departure.
        let late = harness.core.configuration.verifyDeadline + .seconds(1)
        for peer in [a, b] { harness.handle(.workerMessage(.heartbeat, from: peer, origin: nil), at: late - .milliseconds(500)) }
        let taken = harness.handle(.tick, at: late)
        #expect(harness.core.workers[b] != nil, "the verifier is still registered")
        #expect(Self.localChecks(in: taken).count == 1)
        #expect(harness.core.jobs[job]?.open.isEmpty == true)
    }

    @Test("a client that asked for file events gets one filesDone naming every published file of the batch")
    func fileEvents() throws {
        var (harness, job, batch) = try Self.batchOut(verify: false, fileEvents: true)
        defer { harness.cleanUp() }
        harness.handle(Self.answer(batch), at: .milliseconds(1))
        let done = harness.handle(.workerMessage(.published(PublishReport(jobID: job.value, itemID: batch.itemID, attempt: batch.attempt, failures: [])),
                                                 from: a, origin: nil), at: .milliseconds(2))
        let events = done.events(of: job).compactMap { if case .filesDone(let files) = $0 { files } else { nil } }
        #expect(events.count == 1)
        #expect(events.first?.files.map(\.path) == ["f0", "f1", "f2", "f3"])
        #expect(events.first?.files.allSatisfy { $0.bytesIn == 1024 && $0.bytesOut == 100 } == true)
    }

    @Test("with a journal a batch's files are recorded before its grant leaves; a record that fails fails them and the job")
    func journaledFirst() throws {
        let (journal, remove) = try Self.scratchJournal("batch-journal")
        defer { remove() }
        for outcome in ["recorded", "refused"] {
            var (harness, job, batch) = try Self.batchOut(verify: false) { $0.journal = journal }
            defer { harness.cleanUp() }
            let effects = harness.handle(Self.answer(batch), at: .milliseconds(1))
            #expect(Self.grants(in: effects).isEmpty, "nothing is granted before the journal has it")
            let records = effects.compactMap { effect -> (ItemKey, [PublishedFile])? in
                if case .journal(.granted(let keys, let files)) = effect, keys.count == 1, let key = keys.first { return (key, files) }
                return nil
            }
            let (key, files) = try #require(records.first)
            #expect(records.count == 1 && key == ItemKey(job: job, item: ItemID(batch.itemID)))
            #expect(files.map { String(decoding: $0.path, as: UTF8.self) } == ["f0", "f1", "f2", "f3"])
            #expect(files.allSatisfy { $0.outputInode == 0 && $0.crc == 7 && $0.outputSize == 100 && $0.sourceSize == 1024 })
            if outcome == "recorded" {
                let sent = harness.handle(.grantsRecorded([key], failure: nil), at: .milliseconds(2))
                #expect(Self.grants(in: sent).map(\.attempt) == [batch.attempt])
                #expect(harness.core.jobs[job]?.open.isEmpty == true)
            } else {
                let failed = harness.handle(.grantsRecorded([key], failure: "journal: disk full"), at: .milliseconds(2))
                #expect(Self.grants(in: failed).isEmpty)
                #expect(failed.events(of: job).filter { if case .fileFailed = $0 { true } else { false } }.count == 4)
                #expect(harness.core.jobs[job]?.phase.isRunning == false, "the job fails naming the journal")
            }
        }
    }

    @Test("grants that come while a journal transaction is in flight wait for it and go together in the next one; it holds only the waiting grants the core still wants")
    func groupCommit() throws {
        let (journal, remove) = try Self.scratchJournal("group-commit")
        defer { remove() }
        var (harness, job, batches) = try Self.journaledBatches(3, journal: journal)
        defer { harness.cleanUp() }
        #expect(batches.count == 3)
        func commands(_ effects: [CoordinatorEffect]) -> [[ItemKey]] {
            effects.compactMap { if case .journal(.granted(let keys, _)) = $0 { keys } else { nil } }
        }
        let keys = batches.map { ItemKey(job: job, item: ItemID($0.itemID)) }
        #expect(commands(harness.handle(Self.answer(batches[0]), at: .milliseconds(1))) == [[keys[0]]])
        #expect(commands(harness.handle(Self.answer(batches[1]), at: .milliseconds(2))).isEmpty, "it waits for the transaction in flight")
        #expect(commands(harness.handle(Self.answer(batches[2]), at: .milliseconds(3))).isEmpty)
        let first = harness.handle(.grantsRecorded([keys[0]], failure: nil), at: .milliseconds(4))
        #expect(Self.grants(in: first).map(\.itemID) == [batches[0].itemID])
        #expect(commands(first) == [[keys[1], keys[2]]], "both waiting grants in one transaction")
        let rest = harness.handle(.grantsRecorded([keys[1], keys[2]], failure: nil), at: .milliseconds(5))
        #expect(Self.grants(in: rest).map(\.itemID) == [batches[1].itemID, batches[2].itemID])
        #expect(commands(rest).isEmpty && !harness.core.grantRecords.recording)

        // `wanted` decides which waiting grants go in the next transaction.
        var records = GrantRecords()
        let other = ItemKey(job: job, item: ItemID(99))
        #expect(records.record(keys[0], []) != nil)
        #expect(records.record(other, []) == nil && records.waitingCount == 1)
        #expect(records.recorded { $0 != other } == nil && !records.recording)
    }

    @Test("a job cancelled while its grants are recorded or wait for a transaction publishes none of them")
    func groupCommitCancelled() throws {
        let (journal, remove) = try Self.scratchJournal("group-cancel")
        defer { remove() }
        var (harness, job, batches) = try Self.journaledBatches(2, journal: journal)
        defer { harness.cleanUp() }
        #expect(batches.count == 2)
        for (number, batch) in batches.enumerated() { harness.handle(Self.answer(batch), at: .milliseconds(1 + number)) }
        #expect(harness.core.grantRecords.recording && harness.core.grantRecords.waitingCount == 1)
        harness.handle(.cancel(job, reason: "cancelled", as: .cancelled), at: .milliseconds(3))
        let keys = batches.map { ItemKey(job: job, item: ItemID($0.itemID)) }
        let recorded = harness.handle(.grantsRecorded([keys[0]], failure: nil), at: .milliseconds(4))
        #expect(Self.grants(in: recorded).isEmpty, "the recorded grant is not sent")
        #expect(recorded.allSatisfy { if case .journal(.granted) = $0 { false } else { true } }, "the waiting one is not recorded")
        #expect(!harness.core.grantRecords.recording)
    }
}
