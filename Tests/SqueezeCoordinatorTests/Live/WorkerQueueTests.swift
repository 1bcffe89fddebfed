import Foundation
import NIOConcurrencyHelpers
import SqueezeGzip
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A worker holds at most 64 items per slot beyond the ones it compresses: a coordinator that
/// sends more gets the rest back at once as `itemFailed`, to send elsewhere.
@Suite("Worker: a bounded item queue")
struct WorkerQueueTests {
    @Test("items past the queue's bound are failed at once with the reason; the rest are held")
    func boundedQueue() async throws {
        let context = try ZMQContext()
        let setting = try LevelTable.setting(forLevel: 1)
        let raw = try await RawCoordinator.start(context: context)
        let (coordinator, address) = (raw.endpoint, raw.address)
        var configuration = WorkerConfiguration(coordinator: address, slots: 1, workerID: "flooded")
        configuration.storage = .remote
        configuration.itemDelayForTesting = .seconds(3)  // the slot stays busy while the items arrive
        let worker = Worker(configuration: configuration, context: context)
        let refused = NIOLockedValueBox<[ItemFailure]>([])
        let peer = NIOLockedValueBox<[UInt8]?>(nil)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask {
                await raw.serve(welcome: Welcome(heartbeatMilliseconds: 1000, liveness: 60), peer: peer) { message in
                    switch message {
                    case .itemFailed(let failure): refused.withLockedValue { $0.append(failure) }
                    default: break
                    }
                }
            }
            guard let routing = await RawCoordinator.registered(peer) else {
                Issue.record("the worker never registered")
                group.cancelAll()
                return
            }
            for item in 0..<80 {
                let block = WorkBlock(file: 0, index: 0, dictionaryLength: 0, isLast: true, bytes: ZMQFrame(Array(repeating: 7, count: 100)))
                let work = WorkAssignment(jobID: 1, itemID: UInt64(item), setting: setting, blocks: [block])
                raw.send(.work(work), to: routing)
            }
            // One item compressing, one in the hand of the queue's owner, 64 queued: 14 to 16 refused.
            #expect(await QuietHeartbeatTests.eventually { refused.withLockedValue { $0.count } >= 14 })
            let failures = refused.withLockedValue { $0 }
            #expect(failures.count <= 16, "\(failures.count) refused")
            #expect(failures.allSatisfy { $0.reason.contains("queue is full") && $0.itemID >= 64 })
            group.cancelAll()
        }
        await coordinator.shutdown()
    }
}
