import Foundation
import NIOConcurrencyHelpers
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A real worker that sees the storage announces listing checks and answers one with the
/// digest of the slice as a scan lists it, writing nothing, alone or carried in a `verifyBatch`;
/// a remote one announces none.
@Suite("Worker: listing checks")
struct WorkerListingCheckTests {
    @Test("a shared-storage worker lists the slice, answers its digest (alone, and in a verifyBatch's verified) and makes no folder; a remote one does not announce listings",
          arguments: [StorageMode.auto, .remote])
    func answersWithTheDigest(storage: StorageMode) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UInt64.random(in: 1...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: folder + "/src/d/e", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["a", "b", "e/c"] { try Data(repeating: 3, count: 100).write(to: URL(fileURLWithPath: folder + "/src/d/" + name)) }
        try Data(repeating: 3, count: 9000).write(to: URL(fileURLWithPath: folder + "/src/d/big"))
        let scan = ScanAssignment(
            jobID: 1, itemID: 2, attempt: 0, setting: try EngineSetting(engine: .zlib, level: 6), headerLevel: 6, syncPieces: false,
            smallFileBytes: 4096, maxEntries: 4096, maxSmallBytes: 1 << 20, workspace: Array((folder + "/ws").utf8), root: Array((folder + "/src").utf8),
            destination: Array((folder + "/out").utf8), directory: Array("d".utf8), after: [], exclude: [])
        let check = ListingCheck(checkID: 77, key0: 0x1234, key1: 0x5678, scan: scan)
        let expected = scan.listing().report
        #expect(expected.sections.map(\.directory) == [Array("d".utf8), Array("d/e".utf8)] && expected.sections[0].largeFiles.count == 1)

        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        var configuration = WorkerConfiguration(coordinator: raw.address, slots: 1, workerID: "lister")
        configuration.storage = storage
        let worker = Worker(configuration: configuration, context: context)
        let capabilities = NIOLockedValueBox<[String]?>(nil)
        let answers = NIOLockedValueBox<[ListingChecked]>([])
        let verdicts = NIOLockedValueBox<[VerifyReport]>([])
        let probed = NIOLockedValueBox(false)
        let peer = NIOLockedValueBox<[UInt8]?>(nil)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                await raw.serve(welcome: Welcome(heartbeatMilliseconds: 1000, liveness: 30), peer: peer) { message in
                    switch message {
                    case .workerReady(let hello): capabilities.withLockedValue { $0 = hello.capabilities ?? [] }
                    case .listingChecked(let answer): answers.withLockedValue { $0.append(answer) }
                    case .verified(let report): verdicts.withLockedValue { $0.append(report) }
                    case .probeReply: probed.withLockedValue { $0 = true }
                    default: break
                    }
                }
            }
            guard let routing = await RawCoordinator.registered(peer) else {
                Issue.record("the worker never registered")
                group.cancelAll()
                return
            }
            let announced = capabilities.withLockedValue { $0 } ?? []
            #expect(announced.contains(WorkerHello.listingsCapability) == (storage != .remote), "\(announced)")
            #expect(announced.contains(WorkerHello.batchListingsCapability) == (storage != .remote), "\(announced)")
            raw.send(.checkListing(check), to: routing)
            if storage == .remote {
                // Dropped with a warning. A remote worker answers a probe as it reads it, so once
                // the probe's answer is in, the check before it was read and let go.
                raw.send(.probe(StorageProbe(jobID: 1, workspace: Array(folder.utf8), token: "t", sample: nil)), to: routing)
                #expect(await QuietHeartbeatTests.eventually { probed.withLockedValue { $0 } })
                #expect(answers.withLockedValue { $0 }.isEmpty)
            } else {
                #expect(await QuietHeartbeatTests.eventually { !answers.withLockedValue { $0 }.isEmpty })
                #expect(answers.withLockedValue { $0 } == [ListingChecked(checkID: 77, digest: expected.listingDigest(key0: 0x1234, key1: 0x5678))])
                // The same check in a batch's check (of no files): answered in its verified.
                var batch = BatchCheck(
                    checkID: 5, jobID: 1, itemID: 2, attempt: 3, headerLevel: 6, workspace: scan.workspace, root: scan.root, files: [], pieceLengths: [])
                batch.listing = ListingCheck(checkID: 78, key0: 0x9, key1: 0xA, scan: scan)
                raw.send(.verifyBatch(batch), to: routing)
                #expect(await QuietHeartbeatTests.eventually { !verdicts.withLockedValue { $0 }.isEmpty })
                #expect(verdicts.withLockedValue { $0 }.map(\.listing) == [ListingChecked(checkID: 78, digest: expected.listingDigest(key0: 0x9, key1: 0xA))])
                #expect(!FileManager.default.fileExists(atPath: folder + "/out"), "a check makes no folder")
            }
            group.cancelAll()
        }
        await raw.endpoint.shutdown()
    }
}
