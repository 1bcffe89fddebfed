import SqueezeGzip
import SqueezeProtocol
import SqueezeZMQ

/// Sample messages for every message type, and helpers to build frames by hand.
enum Fixtures {
    /// Deterministic bytes: `count` bytes starting at `seed`, wrapping.
    static func bytes(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ Int(seed)) }
    }

    static let hello = WorkerHello(workerID: "worker-7f3a", host: "node-2", slots: 4, pid: 31_337)
    static let welcome = Welcome(heartbeatMilliseconds: 1_000, liveness: 3)
    static let failure = ItemFailure(jobID: 7, itemID: 42, reason: "zlib: insufficient memory")
    static let request = JobRequest(source: "/data/logs", destination: "/data/out", level: 6, force: true, blockSize: 1 << 20)
    static let requestDefaults = JobRequest(source: "/data/ünïcode dir", destination: nil, level: 0, force: false)
    static let requestDetached = JobRequest(source: "photos", destination: nil, level: 9, force: false, detached: true, heartbeatMilliseconds: 500)
    static let accepted = JobAccepted(jobID: 7, destination: "/data/logs.squeezed")
    static let errorReply = ErrorReply(message: "/etc: outside the coordinator's root")

    static let start = JobStart(jobID: 7, source: "/data/logs", destination: "/data/out", files: 12, bytes: 123_456_789)
    static let skippedNote = EntryNote(path: "sock", reason: "not a regular file (socket)")
    static let failedNote = EntryNote(path: "a/b.log", reason: "changed while being read")
    static let done = FileDone(path: "a/c.log", bytesIn: 10_000, bytesOut: 2_345)
    static let snapshot = ProgressSnapshot(
        jobID: 7, filesDone: 3, files: 12, bytesDone: 5_000_000, bytes: 123_456_789, bytesOut: 1_200_000,
        seconds: 1.5, workers: 2,
        active: [FileProgress(path: "big.bin", done: 4_000_000, total: 100_000_000), FileProgress(path: "x", done: 0, total: 1)]
    )
    static let summary = JobSummary(
        jobID: 7, state: .completed, message: nil, filesCompressed: 11, bytesIn: 123_456_000, bytesOut: 30_000_000,
        seconds: 12.25, skipped: [skippedNote], failed: [failedNote]
    )
    static let cancelledSummary = JobSummary(
        jobID: 8, state: .cancelled, message: "client went away", filesCompressed: 0, bytesIn: 0, bytesOut: 0,
        seconds: 0, skipped: [], failed: []
    )

    /// One event of each kind.
    static let events: [JobEvent] = [
        .started(start), .skipped(skippedNote), .fileFailed(failedNote), .fileDone(done),
        .entriesSkipped(EntryNotes(entries: [skippedNote, EntryNote(path: "d/l", reason: "symbolic link (not followed)")])),
        .filesFailed(EntryNotes(entries: [failedNote])),
        .filesDone(FilesDone(files: [done, FileDone(path: "ü/ b", bytesIn: UInt64.max, bytesOut: 0)])), .filesDone(FilesDone(files: [])),
        .progress(snapshot), .trace(traceChunk), .trace(TraceChunk(jobID: 7)), .finished(summary), .finished(cancelledSummary),
    ]

    static let traceChunk: TraceChunk = {
        var attempt = TracedAttempt(item: 3, attempt: 2, worker: 1, blocks: 4, bytes: 1 << 20, queuedAt: 10, dispatchedAt: 2_000)
        attempt.outcome = "written"
        attempt.slot = 1
        attempt.workerStart = 2_100
        attempt.workerEnd = 9_000
        attempt.compressMicros = 6_000
        attempt.answeredAt = 9_200
        attempt.writtenAt = 9_900
        return TraceChunk(
            jobID: 7, workers: [TraceWorker(index: 1, workerID: "w1", host: "node-1", slots: 2, clockOffsetMicros: -123_456)],
            attempts: [attempt], counters: [TraceCounters(at: 5_000, queued: 3, inFlight: 2, bytesInFlight: 1 << 21, unwritten: 1)])
    }()

    static let timing = ItemTiming(
        jobID: 7, itemID: 42, slot: 1, receivedAt: 1_000, startedAt: 1_500, endedAt: 9_000, readMicros: 500, compressMicros: 6_000, writeMicros: 700)

    static let status = ClusterStatus(
        workers: [
            WorkerStatus(workerID: "worker-7f3a", host: "node-2", slots: 4, busy: 3, megabytesPerSecond: 151.5, lastHeartbeatSeconds: 0.4, itemsDone: 99),
        ],
        jobs: [
            JobStatus(jobID: 7, source: "/data/logs", state: .running, filesDone: 3, files: 12, bytesDone: 5_000_000, bytes: 123_456_789),
            JobStatus(jobID: 6, source: "/data/old", state: .failed, filesDone: 0, files: 1, bytesDone: 0, bytes: 1),
        ],
        lateResults: 2,
        malformedMessages: 1
    )

    /// An item with several blocks: no dictionary, a full 32 KiB dictionary, an empty block,
    /// a dictionary with no data, and last flags both ways.
    /// A setting; the fixtures only use valid ones.
    static func setting(_ engine: CompressionEngine, _ level: Int) -> EngineSetting {
        guard let setting = try? EngineSetting(engine: engine, level: level) else { fatalError("bad fixture setting") }
        return setting
    }

    static let multiBlockWork = WorkAssignment(jobID: 7, itemID: 42, setting: setting(.libdeflate, 6), blocks: [
        WorkBlock(file: 0, index: 0, dictionaryLength: 0, isLast: false, bytes: ZMQFrame(bytes(1_000))),
        WorkBlock(file: 0, index: 1, dictionaryLength: 32_768, isLast: true, bytes: ZMQFrame(bytes(32_768 + 500, seed: 9))),
        WorkBlock(file: 1, index: 0, dictionaryLength: 0, isLast: true, bytes: ZMQFrame([])),
        WorkBlock(file: 2, index: 3, dictionaryLength: 100, isLast: true, bytes: ZMQFrame(bytes(100, seed: 3))),
        WorkBlock(file: UInt32.max, index: UInt32.max, dictionaryLength: 7, isLast: false, bytes: ZMQFrame(bytes(20, seed: 200))),
    ])
    static let emptyWork = WorkAssignment(jobID: 0, itemID: 0, setting: setting(.zlib, 0), blocks: [])
    static let level9Work = WorkAssignment(jobID: UInt64.max, itemID: UInt64.max, setting: setting(.isal, 3), blocks: [
        WorkBlock(file: 5, index: 0, dictionaryLength: 0, isLast: true, bytes: ZMQFrame([0x42])),
    ])

    static let multiBlockResult = WorkResult(jobID: 7, itemID: 42, blocks: [
        ResultBlock(crc: 0xDEAD_BEEF, rawLength: 1_000, bytes: ZMQFrame(bytes(300, seed: 1))),
        ResultBlock(crc: 0x1234_5678, rawLength: 500, bytes: ZMQFrame(bytes(200, seed: 2))),
        ResultBlock(crc: 0, rawLength: 0, bytes: ZMQFrame([0x03, 0x00])),
        ResultBlock(crc: 0, rawLength: 0, bytes: ZMQFrame([])),
        ResultBlock(crc: UInt32.max, rawLength: 20, bytes: ZMQFrame(bytes(25, seed: 4))),
    ])
    static let emptyResult = WorkResult(jobID: 1, itemID: 2, blocks: [])

    static let probe = StorageProbe(
        jobID: 7, workspace: Array("/data/out/.squeeze-tmp-job-1f".utf8), token: "c0ffee",
        sample: ProbeSample(path: [0x2F, 0x64, 0xFF, 0x00, 0x41], size: 1 << 40, modifiedSeconds: -5, modifiedNanoseconds: 999_999_999, inode: UInt64.max))
    static let probeWithoutSample = StorageProbe(jobID: 0, workspace: Array("/w".utf8), token: "", sample: nil)
    static let probeYes = ProbeReply(jobID: 7, shared: true)
    static let probeNo = ProbeReply(jobID: 7, shared: false, reason: "/data/out/.squeeze-tmp-job-1f/probe: No such file or directory")

    static let refWork = RefAssignment(
        jobID: 7, itemID: 42, attempt: 9, setting: setting(.libdeflate, 6), workspace: Array("/data/out/.squeeze-tmp-job-1f".utf8),
        syncPieces: true, blocks: [
            RefBlock(file: 0, index: 3, path: Array("/data/big.bin".utf8), offset: 3 * 65_536 - 32_768, dictionaryLength: 32_768,
                     dataLength: 65_536, isLast: false, size: 1 << 20, modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 5,
                     inode: 77, permissions: 0o644, header: nil),
            RefBlock(file: UInt32.max, index: 0, path: [0x2F, 0xC3, 0x28, 0x0A], offset: 0, dictionaryLength: 0, dataLength: 10,
                     isLast: true, size: 10, modifiedSeconds: -1, modifiedNanoseconds: 0, inode: 0, permissions: 0o7777,
                     header: [0x1F, 0x8B, 8, 8, 0, 0, 0, 0, 0, 3, 0x61, 0]),
            RefBlock(file: 2, index: 0, path: Array("/e".utf8), offset: 0, dictionaryLength: 0, dataLength: 0, isLast: true,
                     size: 0, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 1, permissions: 0, header: [0x1F]),
            RefBlock(file: 3, index: 5, path: Array("/data/stored.bin".utf8), offset: 5 * 65_536, dictionaryLength: 0,
                     dataLength: 65_536, isLast: false, size: 1 << 20, modifiedSeconds: 1, modifiedNanoseconds: 2, inode: 3,
                     permissions: 0o600, header: nil, placement: RefPlacement(attempt: 10, offset: 12 + 5 * 65_546)),
        ])
    /// Over a FUSE mount: the worker sees its own inode numbers and mtimes to the second.
    static var viewedRefWork: RefAssignment {
        var work = refWork
        work.syncPieces = false
        work.view = SharedView(inodes: false, nanoseconds: false)
        return work
    }
    /// Two blocks of a tar stream between plain ones: a header, a file's range and padding;
    /// a dictionary that ends in zeros and a block of one file's range.
    static let tarSegments: [[RefSegment]] = [
        [.bytes([UInt8](repeating: 0x75, count: 512)), .file(path: Array("/data/src/a b".utf8), size: 1000, modifiedSeconds: -3,
                                                              modifiedNanoseconds: 999_999_999, inode: 8, offset: 0, length: 1000), .zeros(24)],
        [.zeros(1024), .file(path: [0x2F, 0xFF], size: UInt64.max, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0,
                             offset: UInt64.max - 2048, length: 2048)],
    ]
    static var tarRefWork: RefAssignment {
        var work = refWork
        work.blocks.removeLast()  // placed, which a composite block never is
        var first = RefBlock(file: 0, index: 0, path: Array("/data/src".utf8), offset: 0, dictionaryLength: 0, dataLength: 1536,
                             isLast: false, size: 1 << 30, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0, permissions: 0o644, header: nil)
        first.segments = tarSegments[0]
        var second = RefBlock(file: 0, index: 1, path: Array("/data/src".utf8), offset: 1536 - 1024, dictionaryLength: 1024,
                              dataLength: 2048, isLast: true, size: 1 << 30, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0,
                              permissions: 0o644, header: nil)
        second.segments = tarSegments[1]
        work.blocks.insert(first, at: 1)
        work.blocks.append(second)
        return work
    }
    static var tarVerify: VerifyRequest {
        var request = verify
        var composite = VerifyReference(
            sourcePath: Array("/data/src".utf8), size: 1 << 30, modifiedSeconds: 0, modifiedNanoseconds: 0, inode: 0, sourceOffset: 0,
            dictionaryLength: 0, rawLength: 1536, isLast: false, compressedPath: Array("/data/out/.squeeze-tmp-job-1/p42-9-0".utf8),
            compressedOffset: 0, compressedLength: 700, header: nil)
        composite.segments = tarSegments[0]
        request.blocks.insert(.reference(composite), at: 1)
        return request
    }
    static var viewedVerify: VerifyRequest {
        var request = verify
        request.setView(SharedView(inodes: false, nanoseconds: true))
        return request
    }
    static var returningHello: WorkerHello {
        var hello = hello
        hello.holding = [HeldItems(jobID: 7, itemIDs: [0, 1, 42]), HeldItems(jobID: UInt64.max, itemIDs: [UInt64.max])]
        return hello
    }
    static var keepingWelcome: Welcome {
        var welcome = welcome
        welcome.keep = [HeldItems(jobID: 7, itemIDs: [1, 42])]
        return welcome
    }
    static var probeAnswered: ProbeReply {
        var reply = ProbeReply(jobID: 7, shared: true)
        reply.answer = "answer-9f3c"
        reply.view = SharedView(inodes: false, nanoseconds: false)
        reply.sampleCRC = 0xCAFE_F00D
        return reply
    }
    static let emptyRefWork = RefAssignment(jobID: 0, itemID: 0, attempt: 0, setting: setting(.zlib, 0), workspace: Array("/".utf8), syncPieces: false, blocks: [])
    static let stitch = StitchRequest(
        jobID: 7, file: 3, attempt: 12, workspace: Array("/data/out/.squeeze-tmp-job-1f".utf8), offset: 12, syncResult: false, permissions: 0o640,
        modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 123, header: [0x1F, 0x8B, 8, 8, 0, 0, 0, 0, 0, 3, 0x61, 0],
        trailer: [1, 2, 3, 4, 5, 6, 7, 8],
        pieces: [StitchPiece(item: 4, attempt: 9, position: 0, length: 300_000), StitchPiece(item: 5, attempt: 11, position: 0, length: 1)])
    static let refResult = RefResult(jobID: 7, itemID: 42, attempt: 9, pieces: [
        PieceReport(crc: 0xDEAD_BEEF, rawLength: 65_536, pieceLength: 20_000),
        PieceReport(failure: "/data/x: file grew while it was read (10 -> 11 bytes)"),
        PieceReport(crc: 0, rawLength: 0, pieceLength: 20),
    ])

    /// Samples of `type`; every type has at least one.
    static func messages(of type: MessageType) -> [WireMessage] {
        switch type {
        case .workerReady: [.workerReady(hello), .workerReady(returningHello)]
        case .welcome: [.welcome(welcome), .welcome(keepingWelcome)]
        case .heartbeat: [.heartbeat]
        case .work: [.work(multiBlockWork), .work(emptyWork), .work(level9Work)]
        case .result: [.result(multiBlockResult), .result(emptyResult)]
        case .itemFailed: [.itemFailed(failure)]
        case .timing: [.timing(timing)]
        case .clock: [.clock(0), .clock(1_234_567_890_123)]
        case .timings: [.timings(true), .timings(false)]
        case .cancelJob: [.cancelJob(7), .cancelJob(0), .cancelJob(UInt64.max)]
        case .goodbye: [.goodbye]
        case .unknownPeer: [.unknownPeer]
        case .submit: [.submit(request), .submit(requestDefaults), .submit(requestDetached)]
        case .submitted: [.submitted(accepted)]
        case .attach: [.attach(AttachRequest(jobID: 7)), .attach(AttachRequest(jobID: UInt64.max, heartbeatMilliseconds: 250, owner: true))]
        case .jobEvent: events.map(WireMessage.jobEvent)
        case .cancel: [.cancel(7), .cancel(UInt64.max)]
        case .statusRequest: [.statusRequest]
        case .statusReply: [.statusReply(status), .statusReply(ClusterStatus(workers: [], jobs: []))]
        case .error: [.error(errorReply)]
        case .probe: [.probe(probe), .probe(probeWithoutSample)]
        case .probeReply: [.probeReply(probeYes), .probeReply(probeNo), .probeReply(probeAnswered)]
        case .workRef: [.workRef(refWork), .workRef(emptyRefWork), .workRef(viewedRefWork), .workRef(tarRefWork)]
        case .resultRef: [.resultRef(refResult), .resultRef(RefResult(jobID: 1, itemID: 2, attempt: 3, pieces: []))]
        case .stitch: [.stitch(stitch), .stitch(middleSegment), .stitch(lastSegment), .stitch(lastSegmentWithTable)]
        case .stitched: [.stitched(StitchResult(jobID: 7, file: 3, attempt: 12, length: 1 << 33)),
                         .stitched(StitchResult(jobID: 7, file: 3, attempt: 12, length: 0, failure: "piece p4-9-0: No such file or directory"))]
        case .discarded: [.discarded(7), .discarded(UInt64.max)]
        case .discard: [.discard(discard), .discard(PieceDiscard(jobID: 7, workspace: Array("/w".utf8), pieces: []))]
        case .publish: [.publish(publish), .publish(PublishGrant(jobID: 7, itemID: 1, attempt: 2, workspace: Array("/w".utf8), syncPieces: false, members: []))]
        case .published: [.published(PublishReport(jobID: 7, itemID: 42, attempt: 9, failures: [])),
                          .published(PublishReport(jobID: UInt64.max, itemID: 42, attempt: 9, failures: [
                              PublishFailure(position: 1, reason: "output /data/out/b.gz already exists (use --force to replace it)"),
                              PublishFailure(position: 8191, reason: ""),
                          ]))]
        case .verify: [.verify(verify), .verify(VerifyRequest(checkID: 0, jobID: 0, itemID: 0, blocks: [])), .verify(viewedVerify), .verify(tarVerify)]
        case .verified: [.verified(verified), .verified(verifiedWithStoredCRCs), .verified(VerifyReport(checkID: UInt64.max, findings: [])),
                         .verified(verifiedWithListing)]
        case .batch: [.batch(batch), .batch(viewedBatch), .batch(emptyBatch)]
        case .verifyBatch: [.verifyBatch(batchCheck), .verifyBatch(viewedBatchCheck), .verifyBatch(batchCheckWithListing)]
        case .scan: [.scan(scan), .scan(rootScan)]
        case .scanned: [.scanned(scanned), .scanned(scannedEmpty), .scanned(scannedUnreadable), .scanned(scannedElsewhere)]
        case .checkListing: [.checkListing(ListingCheck(checkID: 9, key0: 0x0123_4567_89AB_CDEF, key1: UInt64.max, scan: scan)),
                             .checkListing(ListingCheck(checkID: UInt64.max, key0: 0, key1: 0, scan: rootScan))]
        case .listingChecked: [.listingChecked(ListingChecked(checkID: 9, digest: 0xFEDC_BA98_7654_3210)),
                               .listingChecked(ListingChecked(checkID: 0, digest: 0))]
        }
    }

    /// A check of four blocks: one inline (with a dictionary), one piece and one whole member
    /// by reference, and a stitched segment's range.
    static let verify = VerifyRequest(checkID: 9, jobID: 7, itemID: 42, blocks: [
        .inline(InlineVerifyBlock(dictionary: ZMQFrame([UInt8](repeating: 0x61, count: 32_768)), deflate: ZMQFrame([3, 0]), rawLength: 65_536, isLast: false)),
        .reference(VerifyReference(
            sourcePath: Array("/data/a.bin".utf8), size: 1 << 20, modifiedSeconds: -5, modifiedNanoseconds: 999_999_999, inode: 77,
            sourceOffset: 65_536 - 32_768, dictionaryLength: 32_768, rawLength: 65_536, isLast: true,
            compressedPath: Array("/data/out/.squeeze-tmp-job-1/p42-9-1".utf8), compressedOffset: 0, compressedLength: 20_000, header: nil)),
        .reference(VerifyReference(
            sourcePath: Array("/data/b".utf8), size: 10, modifiedSeconds: 1, modifiedNanoseconds: 0, inode: 3,
            sourceOffset: 0, dictionaryLength: 0, rawLength: 10, isLast: true,
            compressedPath: Array("/data/out/.squeeze-tmp-job-1/p42-9-2".utf8), compressedOffset: 12, compressedLength: 40,
            header: [0x1F, 0x8B, 8, 8, 0, 0, 0, 0, 0, 3, 0x62, 0])),
        .range(VerifyRange(path: Array("/data/out/.squeeze-tmp-job-1/s3-12".utf8), offset: 16 << 20, length: (16 << 20) + 8)),
    ])
    static let verified = VerifyReport(checkID: 9, findings: [
        VerifyFinding(outcome: .decoded, crc: 0xDEAD_BEEF),
        VerifyFinding(outcome: .defect, sourceCRC: 0x1234_5678, reason: "not valid deflate data (last block)"),
        VerifyFinding(outcome: .unreadable, reason: "/data/b: file was modified while it was read (mtime changed)"),
    ])
    /// From a verifier with `verifyRange`: each finding carries the CRC of the bytes it read.
    /// A batch's verdict with the answer to the listing check its `verifyBatch` carried.
    static var verifiedWithListing: VerifyReport {
        var report = verifiedWithStoredCRCs
        report.listing = ListingChecked(checkID: 12, digest: 0xFEDC_BA98_7654_3210)
        return report
    }
    static let verifiedWithStoredCRCs = VerifyReport(checkID: 10, findings: [
        VerifyFinding(outcome: .decoded, crc: 0xDEAD_BEEF, sourceCRC: 0xDEAD_BEEF, storedCRC: 0x0BAD_F00D),
        VerifyFinding(outcome: .unreadable, storedCRC: 0, reason: "gone"),
    ])

    /// A segment after the first: no header, no trailer.
    static var middleSegment: StitchRequest {
        var segment = stitch
        segment.header = []
        segment.trailer = []
        segment.offset = 300_013
        return segment
    }

    /// The last segment: the trailer, no header, synced.
    static var lastSegment: StitchRequest {
        var segment = middleSegment
        segment.trailer = [8, 7, 6, 5, 4, 3, 2, 1]
        segment.syncResult = true
        segment.offset = 1 << 40
        return segment
    }

    /// The last segment of a member with an offset table: it writes the final header too.
    static var lastSegmentWithTable: StitchRequest {
        var segment = lastSegment
        var header = GzipHeader(fileName: Array("a".utf8), modificationTime: 0, level: 6)
        header.offsetTable = GzipOffsetTable(spanBytes: 1 << 19, spanLengths: [300_000, 123_456])
        segment.finalHeader = header.encoded()
        return segment
    }

    /// A grant of three whole members of item 42, attempt 9: one replaces its output.
    static let publish = PublishGrant(jobID: 7, itemID: 42, attempt: 9, workspace: Array("/data/out/.squeeze-tmp-job-1".utf8), syncPieces: true, members: [
        PublishMember(position: 0, output: Array("/data/out/a.txt.gz".utf8), replace: false),
        PublishMember(position: 2, output: Array("/data/out/sub/ü b.gz".utf8), replace: true),
        PublishMember(position: 8191, output: Array("/x".utf8), replace: false),
    ])

    /// The pieces of `stitch`, to be removed once it is adopted.
    static var discard: PieceDiscard {
        PieceDiscard(jobID: stitch.jobID, workspace: stitch.workspace, pieces: stitch.pieces.map {
            StitchPiece(item: $0.item, attempt: $0.attempt, position: $0.position, length: 0)
        })
    }

    static var allMessages: [WireMessage] { MessageType.allCases.flatMap(messages(of:)) }

    /// Types whose message is the header alone.
    static let bodyless: [MessageType] = [.heartbeat, .goodbye, .unknownPeer, .statusRequest]
    /// Types with exactly one JSON body frame.
    static let jsonTypes: [MessageType] = [.workerReady, .welcome, .itemFailed, .submit, .submitted, .jobEvent, .statusReply, .error, .probe, .probeReply]
    /// Types with an 8-byte job id body.
    static let jobIDTypes: [MessageType] = [.cancelJob, .cancel]

    /// A valid header frame for `type`.
    static func header(_ type: MessageType, correlation: UInt64 = 0) -> [UInt8] {
        var frame: [UInt8] = [0x53, 0x51, 2, type.rawValue]
        frame.appendLE(correlation)
        frame.appendLE(UInt32(0))
        return frame
    }

    /// A work table entry as the protocol lays it out.
    struct WorkEntry {
        var file: UInt32 = 0
        var index: UInt32 = 0
        var dictionary: UInt32 = 0
        var data: UInt32 = 0
        var last: UInt8 = 1
    }

    /// A work table built byte by byte, independent of the codec.
    static func workTable(job: UInt64 = 7, item: UInt64 = 42, engine: UInt8 = 1, level: UInt8 = 6, count: UInt32? = nil, entries: [WorkEntry]) -> [UInt8] {
        var table: [UInt8] = []
        table.appendLE(job)
        table.appendLE(item)
        table.append(engine)
        table.append(level)
        table.appendLE(count ?? UInt32(entries.count))
        for entry in entries {
            table.appendLE(entry.file)
            table.appendLE(entry.index)
            table.appendLE(entry.dictionary)
            table.appendLE(entry.data)
            table.append(entry.last)
        }
        return table
    }

    /// A result table entry as the protocol lays it out.
    struct ResultEntry {
        var crc: UInt32 = 0
        var raw: UInt32 = 0
        var compressed: UInt32 = 0
    }

    /// A result table built byte by byte, independent of the codec.
    static func resultTable(job: UInt64 = 7, item: UInt64 = 42, count: UInt32? = nil, entries: [ResultEntry]) -> [UInt8] {
        var table: [UInt8] = []
        table.appendLE(job)
        table.appendLE(item)
        table.appendLE(count ?? UInt32(entries.count))
        for entry in entries {
            table.appendLE(entry.crc)
            table.appendLE(entry.raw)
            table.appendLE(entry.compressed)
        }
        return table
    }
}

extension [UInt8] {
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// The error `frames` decode to, or nil if they decode.
func decodeError(_ frames: [[UInt8]]) -> ProtocolError? {
    do {
        _ = try WireCodec.decode(frames)
        return nil
    } catch {
        return error
    }
}
