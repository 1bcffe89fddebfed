import CoreMetrics
import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// Scans by workers: a job scanned in slices sends each directory's slice to a worker that
/// takes scans; its listing turns the item into a batch of the slice's small files, plans the
/// large ones and makes scan items of the subdirectories. Anything a worker cannot or must not
/// list, the coordinator lists itself.
@Suite("CoordinatorCore: scans by workers")
struct ScanScenarioTests {
    static let capabilities = BatchScenarioTests.capabilities + [WorkerHello.scansCapability]

    /// A sliced job over a root with one file and the folders `sub` and `sub2`, workers `a`
    /// and `b` registered (taking scans unless `scans` is false, listing checks with
    /// `listings`, whole files with `wholeFiles`) as processes `pids`.
    static func slicedJob(
        scans: Bool = true, listings: Bool = false, batchListings: Bool = false, wholeFiles: Bool = false, verify: Bool = false,
        pids: (Int32, Int32) = (1, 2),
        metrics: any MetricsFactory = NOOPMetricsHandler.instance, _ configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) throws -> (harness: CoreHarness, job: JobID, started: [CoordinatorEffect]) {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        // Two entries a step: the root's listing at the start ends with its two folders, which
        // go out as scans.
        configuration.scanBatchFiles = 2
        configure(&configuration)
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: 1), metrics: metrics)
        let capabilities = (scans ? Self.capabilities : BatchScenarioTests.capabilities) + (listings ? [WorkerHello.listingsCapability] : [])
            + (batchListings ? [WorkerHello.batchListingsCapability] : []) + (wholeFiles ? [WorkerHello.wholeFilesCapability] : [])
        harness.register(a, slots: 4, storage: .shared, capabilities: capabilities, pid: pids.0)
        harness.register(b, slots: 4, storage: .shared, capabilities: capabilities, pid: pids.1)
        let (job, started) = try harness.startJob(sizes: [100], verify: verify, sliced: true) { source in
            for folder in ["sub", "sub2"] {
                try FileManager.default.createDirectory(atPath: source + "/" + folder, withIntermediateDirectories: true)
                try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: source + "/" + folder + "/x"))
            }
        }
        return (harness, job, started)
    }

    static func scans(in effects: [CoordinatorEffect]) -> [(scan: ScanAssignment, peer: PeerID)] {
        effects.sent.compactMap { if case .scan(let scan) = $0.message { (scan, $0.peer) } else { nil } }
    }

    /// The `checkListing` that `sub`'s worker's own listing of its slice (`ScanAssignment.listing`,
    /// a good piece for each small file) sends out.
    static func listingCheck(after sub: (scan: ScanAssignment, peer: PeerID), in harness: inout CoreHarness) throws -> ListingCheck {
        var report = sub.scan.listing().report
        report.result = RefResult(jobID: sub.scan.jobID, itemID: sub.scan.itemID, attempt: sub.scan.attempt,
                                  pieces: report.sections.flatMap(\.smallFiles).map { PieceReport(crc: 7, rawLength: Int($0.size), pieceLength: 100) })
        let listed = harness.handle(.workerMessage(.scanned(report), from: sub.peer, origin: nil), at: .milliseconds(1))
        return try #require(listed.sent.compactMap { if case .checkListing(let check) = $0.message { check } else { nil } }.first)
    }

    static func file(_ name: String, size: UInt64) -> BatchFile {
        BatchFile(relativePath: Array(name.utf8), size: size, modifiedSeconds: 5, modifiedNanoseconds: 6, inode: 7, permissions: 0o644)
    }

    /// `peer`'s listing of `scan`: `small` with a good piece each, and the rest as given, in
    /// one section, or in the sections given.
    static func listing(
        _ scan: ScanAssignment, small: [BatchFile] = [], large: [BatchFile] = [], subdirectories: [String] = [], resume: String = "",
        notes: [ScanEntryNote] = [], outcome: ScanOutcome = .listed, sections more: [ScanSection] = [], piecesLater: Bool = false,
        from peer: PeerID = a
    ) -> CoordinatorEvent {
        let sections = [ScanSection(
            directory: scan.directory, resumeAfter: Array(resume.utf8), smallFiles: small, largeFiles: large,
            subdirectories: subdirectories.map { Array($0.utf8) }, notes: notes)] + more
        let allSmall = sections.flatMap(\.smallFiles)
        let result = allSmall.isEmpty ? nil : RefResult(
            jobID: scan.jobID, itemID: scan.itemID, attempt: scan.attempt,
            pieces: allSmall.map { PieceReport(crc: 7, rawLength: Int($0.size), pieceLength: 100) })
        return .workerMessage(.scanned(ScanReport(
            jobID: scan.jobID, itemID: scan.itemID, attempt: scan.attempt, outcome: outcome, sections: outcome == .listed ? sections : [],
            result: outcome == .listed && !piecesLater ? result : nil)), from: peer, origin: nil)
    }

    @Test("the root is listed at the start; its subdirectories go to workers as scans, whose listings become batches, plans and more scans")
    func roundTrip() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        #expect(harness.core.jobs[job]?.walker == nil && harness.core.jobs[job]?.sliced == true)
        let scans = Self.scans(in: started)
        // Two folders, eight worker slots: an item each.
        #expect(scans.map { String(decoding: $0.scan.directory, as: UTF8.self) }.sorted() == ["sub", "sub2"])
        #expect(scans.allSatisfy { $0.scan.more.isEmpty })
        #expect(harness.core.jobs[job]?.scansOutstanding == 2)
        #expect(harness.core.jobs[job]?.scanComplete == false)
        let sub = try #require(scans.first { $0.scan.directory == Array("sub".utf8) })
        #expect(sub.scan.root == harness.core.jobs[job]?.sourceRoot.bytes && sub.scan.destination == harness.core.jobs[job]?.destination.bytes)
        #expect(sub.scan.smallFileBytes == 4096 && sub.scan.after.isEmpty)

        // Two small files, one large, one subdirectory, and the directory goes on after "m".
        let answered = harness.handle(Self.listing(
            sub.scan, small: [Self.file("a", size: 10), Self.file("b", size: 20)], large: [Self.file("c", size: 3 * 4096)],
            subdirectories: ["d"], resume: "m", from: sub.peer), at: .milliseconds(1))
        let record = try #require(harness.core.jobs[job])
        #expect(record.scansOutstanding == 3, "sub2, sub/d and the rest of sub")
        #expect(record.open.count == 1, "only the large file is open")
        #expect(record.open.values.first?.plan.relativePath == BytePath("sub/c"))
        #expect(record.open.values.first?.plan.stamp.device == record.rootDevice, "stamped with the root's device")
        let grants = answered.sent.compactMap { if case .publish(let grant) = $0.message { grant } else { nil } }
        let grant = try #require(grants.first, "unchecked: the batch is granted at once")
        #expect(grant.members.map { String(decoding: $0.output, as: UTF8.self) }
            == ["a", "b"].map { record.destination.appending(BytePath("sub/\($0)")).display + ".gz" })
        let more = Self.scans(in: answered)
        #expect(Set(more.map { "\(String(decoding: $0.scan.directory, as: UTF8.self)) after \(String(decoding: $0.scan.after, as: UTF8.self))" })
            == ["sub/d after ", "sub after m"])

        // The batch published: its two files are done, counted, not held.
        let done = harness.handle(.workerMessage(.published(PublishReport(
            jobID: grant.jobID, itemID: grant.itemID, attempt: grant.attempt, failures: [])), from: sub.peer, origin: nil), at: .milliseconds(2))
        #expect(harness.core.jobs[job]?.filesCompressed == 2)
        #expect(done.finished(job) == nil, "scans are still out")
    }

    @Test("a worker's slice may hold scanBatchScale items' bytes of one-block files, and its listing check the same; never more than a scanned may hold", arguments: [1, 3, 1 << 40])
    func sliceBytesFollowTheScale(scale: Int) throws {
        var (harness, _, started) = try Self.slicedJob(listings: true, verify: true) { $0.scanBatchScale = scale }
        defer { harness.cleanUp() }
        let expected = UInt64(min(16 * 1024 * scale, ProtocolLimits.maxItemBytes - ProtocolLimits.maxBlockSize))
        let scans = Self.scans(in: started)
        #expect(!scans.isEmpty && scans.allSatisfy { $0.scan.maxSmallBytes == expected })
        let sub = try #require(scans.first)
        let check = try Self.listingCheck(after: sub, in: &harness)
        #expect(check.scan.maxSmallBytes == expected)
    }

    @Test("a slice stops at scanSliceFiles entries of a kind, whatever the walk's step: a worker's scan, its listing check, and the coordinator's own listing of a slice; never more than a scan may ask for", arguments: [nil, 3, 1 << 40])
    func sliceEntriesFollowTheirOwnLimit(files: Int?) throws {
        // The walk's step stays 2 (slicedJob's scanBatchFiles), whatever the slices take.
        let expected = files.map { min($0, ProtocolLimits.maxBlocksPerItem) } ?? 8192
        var (harness, _, started) = try Self.slicedJob(listings: true, verify: true) { configuration in
            if let files { configuration.scanSliceFiles = files }
        }
        defer { harness.cleanUp() }
        #expect(harness.core.configuration.scanBatchFiles == 2)
        let scans = Self.scans(in: started)
        #expect(!scans.isEmpty && scans.allSatisfy { $0.scan.maxEntries == expected })
        let sub = try #require(scans.first)
        let check = try Self.listingCheck(after: sub, in: &harness)
        #expect(check.scan.maxEntries == expected)

        let (local, _, localStarted) = try Self.slicedJob(scans: false) { configuration in
            if let files { configuration.scanSliceFiles = files }
        }
        defer { local.cleanUp() }
        let requests = localStarted.compactMap { if case .scan(let request) = $0 { request } else { nil } }
        #expect(!requests.isEmpty && requests.allSatisfy { $0.slice != nil && $0.context.batchFiles == expected })
    }

    @Test("a listing that breaks its slice's rules is refused and counted, and the slice goes to another worker")
    func brokenListingIsRefused() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let scan = try #require(Self.scans(in: started).first { $0.peer == a })
        let refused = harness.handle(Self.listing(scan.scan, small: [Self.file("b", size: 10), Self.file("a", size: 10)]), at: .milliseconds(1))
        #expect(harness.core.malformedMessages == 1)
        #expect(harness.core.jobs[job]?.filesPlanned == 1, "nothing of it planned")
        let again = Self.scans(in: refused)
        #expect(again.map(\.peer) == [b] && again.first?.scan.directory == scan.scan.directory)
    }

    @Test(arguments: [
        ["small": "", "large": "", "dirs": "a,a"], ["small": "a", "large": "", "dirs": "a"], ["small": "big", "large": "", "dirs": ""],
        ["small": "", "large": "tiny", "dirs": ""],
    ])
    func listingRules(_ shape: [String: String]) {
        func files(_ names: String, size: UInt64) -> [BatchFile] {
            names.split(separator: ",").map { Self.file(String($0), size: $0 == "big" ? 5000 : $0 == "tiny" ? 1 : size) }
        }
        let section = ScanSection(
            directory: [], smallFiles: files(shape["small"] ?? "", size: 10), largeFiles: files(shape["large"] ?? "", size: 9000),
            subdirectories: (shape["dirs"] ?? "").split(separator: ",").map { Array($0.utf8) })
        let report = ScanReport(jobID: 1, itemID: 1, attempt: 1, outcome: .listed, sections: [section])
        let slice = ScanSlice(directory: BytePath(bytes: []), after: nil)
        #expect(ScanListingRules.defect(of: report, slice: slice, smallFileBytes: 4096, exclude: nil) != nil)
    }

    @Test func listingRulesTakeAGoodListingAndRefuseNamesOutsideTheSlice() {
        let section = ScanSection(
            directory: Array("x".utf8), resumeAfter: Array("m".utf8), smallFiles: [Self.file("c", size: 1), Self.file("k", size: 2)],
            largeFiles: [Self.file("d", size: 9000)], subdirectories: [Array("e".utf8)],
            notes: [ScanEntryNote(name: Array("f".utf8), failed: false, reason: "FIFO")])
        func defect(_ sections: [ScanSection], after: String? = nil, exclude: String? = nil) -> String? {
            ScanListingRules.defect(
                of: ScanReport(jobID: 1, itemID: 1, attempt: 1, outcome: .listed, sections: sections),
                slice: ScanSlice(directory: BytePath("x"), after: after.map { Array($0.utf8) }), smallFileBytes: 4096, exclude: exclude.map(BytePath.init))
        }
        #expect(defect([section], after: "b") == nil)
        // A name at or before the slice's start, past its end, or the path left out.
        #expect(defect([section], after: "c") != nil)
        var past = section
        past.resumeAfter = Array("j".utf8)
        #expect(defect([past]) != nil)
        #expect(defect([section], exclude: "x/e") != nil)
        #expect(defect([section], exclude: "e") == nil, "left out only where it lies")
        // A large file of a size no file has: the coordinator would plan blocks without end.
        var huge = section
        huge.largeFiles = [Self.file("d", size: ScanListingRules.maxListedFileBytes + 1)]
        #expect(defect([huge]) != nil)
        huge.largeFiles = [Self.file("d", size: ScanListingRules.maxListedFileBytes)]
        #expect(defect([huge]) == nil)
        // A slice that ends where it started makes no progress.
        let stuck = ScanSection(directory: Array("x".utf8), resumeAfter: Array("b".utf8))
        #expect(defect([stuck], after: "b") != nil)
        #expect(defect([ScanSection(directory: Array("x".utf8), resumeAfter: Array("c".utf8))], after: "b") == nil)
        // Sections: the first is the slice's directory; the others subdirectories named before, once each.
        let sub = ScanSection(directory: Array("x/e".utf8), smallFiles: [Self.file("a", size: 1)])
        #expect(defect([section, sub]) == nil)
        #expect(defect([section, sub, sub]) != nil)
        #expect(defect([section, ScanSection(directory: Array("x/zz".utf8))]) != nil)
        #expect(defect([ScanSection(directory: Array("y".utf8))]) != nil)
        #expect(defect([]) != nil)
        // A later section starts at its directory's first name: anything goes, but in order.
        var unordered = sub
        unordered.smallFiles = [Self.file("b", size: 1), Self.file("a", size: 1)]
        #expect(defect([section, unordered]) != nil)
    }

    @Test("a worker that went on into subdirectories: their files join the job, and only the ones it did not read become scans")
    func sectionsOfSubdirectories() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let sub = try #require(Self.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let answered = harness.handle(Self.listing(
            sub.scan, small: [Self.file("a", size: 10)], subdirectories: ["d", "e"],
            sections: [ScanSection(directory: Array("sub/d".utf8), smallFiles: [Self.file("b", size: 20)], subdirectories: [Array("f".utf8)])],
            from: sub.peer), at: .milliseconds(1))
        let grant = try #require(answered.sent.compactMap { if case .publish(let grant) = $0.message { grant } else { nil } }.first)
        let destination = try #require(harness.core.jobs[job]?.destination)
        #expect(grant.members.map { String(decoding: $0.output, as: UTF8.self) }
            == ["sub/a", "sub/d/b"].map { destination.appending(BytePath($0)).display + ".gz" })
        #expect(Set(Self.scans(in: answered).map { String(decoding: $0.scan.directory, as: UTF8.self) }) == ["sub/e", "sub/d/f"])
        #expect(harness.core.jobs[job]?.scansOutstanding == 3, "sub2, sub/e, sub/d/f")
    }

    @Test("a worker that does not take scans: the coordinator lists the slices it is assigned")
    func workersWithoutScans() throws {
        var (harness, job, started) = try Self.slicedJob(scans: false)
        defer { harness.cleanUp() }
        #expect(Self.scans(in: started).isEmpty)
        var effects = started
        var listed: [String] = []
        for step in 1...10 {
            let requests = effects.compactMap { if case .scan(let request) = $0 { request } else { nil } }
            guard !requests.isEmpty else { break }
            effects = []
            for request in requests {
                let slice = try #require(request.slice)
                listed.append(slice.directory.display)
                let batch = try JobPreparer.nextSlice(slice, exclude: request.exclude, context: request.context, lastCreated: nil)
                #expect(batch.files.map(\.relativePath.display) == [slice.directory.display + "/x"])
                effects += harness.handle(.scanned(job, batch), at: .milliseconds(step))
            }
        }
        #expect(listed.sorted() == ["sub", "sub2"])
        #expect(harness.core.jobs[job]?.scansOutstanding == 0 && harness.core.jobs[job]?.filesPlanned == 3)
        #expect(harness.core.jobs[job]?.scanComplete == true)
    }

    @Test("a scan held by a worker that leaves goes to another; its answer afterwards is dropped as late")
    func holderLeaves() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let held = try #require(Self.scans(in: started).first { $0.peer == a })
        let gone = harness.handle(.workerMessage(.goodbye, from: a, origin: nil), at: .milliseconds(1))
        let again = try #require(Self.scans(in: gone).first { $0.scan.directory == held.scan.directory })
        #expect(again.peer == b && again.scan.attempt != held.scan.attempt)
        harness.register(a, slots: 4, storage: .shared, capabilities: Self.capabilities, pid: 1, at: .milliseconds(2))
        let late = harness.handle(Self.listing(held.scan, small: [Self.file("x", size: 10)]), at: .milliseconds(3))
        #expect(harness.core.lateResults == 1 && harness.core.jobs[job]?.filesPlanned == 1)
        #expect(late.sent.allSatisfy { if case .publish = $0.message { false } else { true } }, "nothing of the stale answer is granted")
        harness.handle(Self.listing(again.scan, small: [Self.file("x", size: 10)], from: b), at: .milliseconds(4))
        #expect(harness.core.jobs[job]?.filesPlanned == 2)
    }

    @Test("a directory a worker could not list, or on another file system, the coordinator lists", arguments: [ScanOutcome.unreadable, .otherFileSystem])
    func unlistedByTheWorker(outcome: ScanOutcome) throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let scan = try #require(Self.scans(in: started).first)
        let effects = harness.handle(Self.listing(scan.scan, outcome: outcome, from: scan.peer), at: .milliseconds(1))
        let local = effects.compactMap { if case .scan(let request) = $0 { request.slice } else { nil } }
        #expect(local.map(\.directory.bytes) == [scan.scan.directory] && local.first?.more.map(\.bytes) == scan.scan.more)
        #expect(harness.core.jobs[job]?.scansOutstanding == 2, "still outstanding until the coordinator has listed it")
    }

    @Test("folders found together go out in groups, in as many items as make two a worker slot with the scans already out; what a worker did not reach goes out again, in one group while the others still read")
    func foldersGoInGroups() throws {
        var configuration = CoreHarness.configuration()
        configuration.itemBytes = 16 * 1024
        // Ten entries a step: the root's listing at the start ends with its ten folders.
        configuration.scanBatchFiles = 10
        var harness = CoreHarness(configuration, rolls: FixedRolls(value: 1))
        defer { harness.cleanUp() }
        harness.register(a, slots: 1, storage: .shared, capabilities: Self.capabilities, pid: 1)
        harness.register(b, slots: 1, storage: .shared, capabilities: Self.capabilities, pid: 2)
        let folders = (0..<10).map { "d\($0)" }
        let (job, started) = try harness.startJob(sizes: [100], sliced: true) { source in
            for folder in folders {
                try FileManager.default.createDirectory(atPath: source + "/" + folder, withIntermediateDirectories: true)
                try Data([1]).write(to: URL(fileURLWithPath: source + "/" + folder + "/x"))
            }
        }
        // The root's listing ends with its ten folders, before its file; the first folder is
        // listed at the start too, for a file the probe can show.
        let record = try #require(harness.core.jobs[job])
        #expect(record.scansOutstanding == 4, "9 folders, 2 slots: 3 items of 3; and the root's rest after them")
        let scans = Self.scans(in: started)
        #expect(!scans.isEmpty && scans.allSatisfy { $0.scan.more.count <= 2 })
        let first = try #require(scans.first { $0.scan.after.isEmpty })
        #expect(first.scan.more.count == 2)
        // The worker read the first folder only: the two it did not reach go out again, as one
        // item, since the three scans still out make, with it, two a slot.
        let before = Set(harness.core.jobs[job]?.items.keys.map { $0 } ?? [])
        harness.handle(Self.listing(first.scan, from: first.peer), at: .milliseconds(1))
        let planned = (harness.core.jobs[job]?.items.values.compactMap(\.scan) ?? []).flatMap { [$0.directory] + $0.more }.map(\.bytes)
        #expect(Set(planned).isSuperset(of: Set(first.scan.more)), "\(planned.map { String(decoding: $0, as: UTF8.self) })")
        #expect(!planned.contains(first.scan.directory))
        #expect(harness.core.jobs[job]?.scansOutstanding == 4 - 1 + 1, "two folders, one item")
        let again = (harness.core.jobs[job]?.items ?? [:]).filter { !before.contains($0.key) }.values.compactMap(\.scan)
        #expect(again.count == 1 && again.first.map { [$0.directory.bytes] + $0.more.map(\.bytes) } == first.scan.more)
    }

    @Test("a listing whose pieces follow: the item is a batch its worker holds, and its resultRef is the batch's answer")
    func piecesFollowTheListing() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let sub = try #require(Self.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let small = [Self.file("a", size: 10), Self.file("b", size: 20)]
        let listed = harness.handle(Self.listing(sub.scan, small: small, large: [Self.file("c", size: 3 * 4096)], piecesLater: true, from: sub.peer),
                                    at: .milliseconds(1))
        #expect(listed.sent.allSatisfy { if case .publish = $0.message { false } else { true } }, "nothing to grant before the pieces")
        let record = try #require(harness.core.jobs[job])
        #expect(record.items[ItemID(sub.scan.itemID)]?.files?.count == 2 && record.items[ItemID(sub.scan.itemID)]?.scan == nil)
        #expect(record.open.count == 1, "the large file is planned at once")
        #expect(harness.core.scheduler.heldSince(ItemKey(job: job, item: ItemID(sub.scan.itemID)), by: sub.peer) != nil, "still held")
        let answered = harness.handle(.workerMessage(.resultRef(RefResult(
            jobID: sub.scan.jobID, itemID: sub.scan.itemID, attempt: sub.scan.attempt,
            pieces: small.map { PieceReport(crc: 7, rawLength: Int($0.size), pieceLength: 100) })), from: sub.peer, origin: nil), at: .milliseconds(2))
        let grant = try #require(answered.sent.compactMap { if case .publish(let grant) = $0.message { grant } else { nil } }.first)
        #expect(grant.members.count == 2 && grant.attempt == sub.scan.attempt)
    }

    /// `peer` announcing itself again, as `slicedJob` registered it, holding `items` of job `job`.
    static func hello(_ peer: PeerID, job: JobID, holding items: [UInt64], pid: Int32) -> CoordinatorEvent {
        .workerMessage(.workerReady(WorkerHello(
            workerID: String(decoding: peer.bytes, as: UTF8.self), host: "test", slots: 4, pid: pid,
            engines: CompressionEngine.allCases.map(\.rawValue), storage: .shared, capabilities: Self.capabilities,
            holding: [HeldItems(jobID: job.value, itemIDs: items)])), from: peer, origin: CoreHarness.origin(of: peer))
    }

    @Test("registering again while it holds a scan: its whole scanned, sent again after it registers, is the slice's answer whether its listing came before or not", arguments: [false, true])
    func wholeScannedAfterRegisteringAgain(listingCame: Bool) throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let sub = try #require(Self.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let key = ItemKey(job: job, item: ItemID(sub.scan.itemID))
        let small = [Self.file("a", size: 10), Self.file("b", size: 20)]
        // The listing went ahead of the pieces; the coordinator either took it or, having
        // declared the worker dead first, never saw it.
        if listingCame {
            harness.handle(Self.listing(sub.scan, small: small, piecesLater: true, from: sub.peer), at: .milliseconds(1))
            #expect(harness.core.jobs[job]?.items[key.item]?.scan == nil)
        }
        // It announces itself again (the coordinator had forgotten it, or it reconnected),
        // still holding the scan.
        let back = harness.handle(Self.hello(sub.peer, job: job, holding: [sub.scan.itemID], pid: sub.peer == a ? 1 : 2), at: .milliseconds(2))
        #expect(ReRegistrationTests.keep(in: back, for: sub.peer) == .some([HeldItems(jobID: job.value, itemIDs: [sub.scan.itemID])]))
        let answered = harness.handle(Self.listing(sub.scan, small: small, from: sub.peer), at: .milliseconds(3))
        let grant = try #require(answered.sent.compactMap { if case .publish(let grant) = $0.message { grant } else { nil } }.first)
        #expect(grant.members.count == 2 && grant.attempt == sub.scan.attempt)
        #expect(harness.core.malformedMessages == 0 && harness.core.lateResults == 0)
        #expect(harness.core.jobs[job]?.filesPlanned == 3, "the root's file and the slice's two, planned once")
    }

    @Test("a listing again without its pieces, from the worker holding the batch its first listing made: counted, and the batch goes to another worker, not done")
    func listingTwiceIsRefused() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let sub = try #require(Self.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let key = ItemKey(job: job, item: ItemID(sub.scan.itemID))
        let small = [Self.file("a", size: 10), Self.file("b", size: 20)]
        harness.handle(Self.listing(sub.scan, small: small, piecesLater: true, from: sub.peer), at: .milliseconds(1))
        let again = harness.handle(Self.listing(sub.scan, small: small, piecesLater: true, from: sub.peer), at: .milliseconds(2))
        #expect(harness.core.malformedMessages == 1)
        #expect(harness.core.scheduler.verdict(key, from: sub.peer) == .notAssigned, "taken back, not done")
        let other: PeerID = sub.peer == a ? b : a
        #expect(again.sent.contains { sent in
            if case .batch(let batch) = sent.message { sent.peer == other && batch.itemID == sub.scan.itemID } else { false }
        })
    }

    @Test("a listing for an item that never was a scan, from the worker holding it: counted, and the item is taken back, not done")
    func listingForAnItemThatIsNotAScan() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let sub = try #require(Self.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let listed = harness.handle(Self.listing(sub.scan, large: [Self.file("c", size: 3 * 4096)], from: sub.peer), at: .milliseconds(1))
        let work = try #require(listed.sent.compactMap { sent -> (item: RefAssignment, peer: PeerID)? in
            if case .workRef(let item) = sent.message { (item, sent.peer) } else { nil }
        }.first, "the large file's blocks go out")
        let key = ItemKey(job: job, item: ItemID(work.item.itemID))
        let report = ScanReport(jobID: work.item.jobID, itemID: work.item.itemID, attempt: work.item.attempt, outcome: .listed, sections: [])
        harness.handle(.workerMessage(.scanned(report), from: work.peer, origin: nil), at: .milliseconds(2))
        #expect(harness.core.malformedMessages == 1)
        #expect(harness.core.scheduler.verdict(key, from: work.peer) == .notAssigned, "taken back, not done")
    }

    @Test("the one-block files the coordinator lists at the root are bundled as a scanning worker's batch would hold them, spread only until the items fill the credit with the scans; without a scanning worker, spread as before")
    func rootFilesBundledAsAScan() throws {
        // (workers take scans, folders at the root) -> batches of the root's 24 files of 1,000
        // bytes, for two one-slot workers with a credit of two items a slot (four in all)
        let cases: [(scans: Bool, folders: Int, batches: Int)] = [
            (true, 4, 1),   // four scan items fill the credit: one batch of 24 KB (the limit is 64 KiB)
            (true, 1, 3),   // one scan item: three batches fill the rest
            (false, 4, 6),  // no scanning worker: spread over 64 bundles, a 4 KiB block at least
        ]
        for (scans, folders, expected) in cases {
            var configuration = CoreHarness.configuration()
            configuration.itemBytes = 16 * 1024
            configuration.creditPerSlot = 2
            var harness = CoreHarness(configuration, rolls: FixedRolls(value: 1))
            defer { harness.cleanUp() }
            let capabilities = scans ? Self.capabilities : BatchScenarioTests.capabilities
            harness.register(a, slots: 1, storage: .shared, capabilities: capabilities, pid: 1)
            harness.register(b, slots: 1, storage: .shared, capabilities: capabilities, pid: 2)
            let (_, started) = try harness.startJob(sizes: Array(repeating: 1000, count: 24), sliced: true) { source in
                for folder in 0..<folders {
                    try FileManager.default.createDirectory(atPath: source + "/sub\(folder)", withIntermediateDirectories: true)
                }
            }
            let batches = harness.core.jobs.values.flatMap { $0.items.values.compactMap(\.files) }
            #expect(batches.flatMap { $0 }.count == 24)
            #expect(batches.count == expected, "scans: \(scans), folders: \(folders)")
            #expect(ScanScenarioTests.scans(in: started).count == (scans ? folders : 0))
        }
    }

    @Test("a listing's skipped entries and failed files, over all its sections, reach the client as one event each, not one per entry")
    func listingNotesAreOneEventEach() throws {
        var (harness, job, started) = try Self.slicedJob()
        defer { harness.cleanUp() }
        let sub = try #require(Self.scans(in: started).first { $0.scan.directory == Array("sub".utf8) })
        let note = { (name: String, failed: Bool) in ScanEntryNote(name: Array(name.utf8), failed: failed, reason: failed ? "unreadable" : "FIFO") }
        let deeper = ScanSection(directory: Array("sub/d".utf8), notes: [note("p2", false), note("r2", true)])
        let answered = harness.handle(Self.listing(
            sub.scan, small: [Self.file("a", size: 10)], subdirectories: ["d"], notes: [note("p1", false), note("r1", true)], sections: [deeper],
            from: sub.peer), at: .milliseconds(1))
        let events = answered.events(of: job)
        let skipped = events.compactMap { if case .entriesSkipped(let notes) = $0 { notes.entries.map(\.path) } else { nil } }
        let failed = events.compactMap { if case .filesFailed(let notes) = $0 { notes.entries.map(\.path) } else { nil } }
        #expect(skipped == [["sub/p1", "sub/d/p2"]])
        #expect(failed == [["sub/r1", "sub/d/r2"]])
        #expect(!events.contains { if case .skipped = $0 { true } else if case .fileFailed = $0 { true } else { false } })
        #expect(harness.core.jobs[job]?.skipped.listed.map(\.path) == ["sub/p1", "sub/d/p2"])
        #expect(harness.core.jobs[job]?.failed.listed.map(\.path) == ["sub/r1", "sub/d/r2"])
    }
}
