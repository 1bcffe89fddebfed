import Foundation
import NIOConcurrencyHelpers
import SqueezeGzip
import SqueezeProtocol
import SqueezeWorker
import SqueezeZMQ
import Testing

/// A real worker that registers again, on the same connection or a new one, names what it
/// still holds and finishes only what the coordinator keeps: nothing is compressed twice and
/// nothing kept is lost.
@Suite("Worker: registering again keeps the work")
struct WorkerReconnectTests {
    /// What the stand-in coordinator saw.
    struct Seen: Sendable {
        /// Every `workerReady`, in order.
        var hellos: [WorkerHello] = []
        /// Item ids answered, in order, with the registration (1-based) each came after.
        var answers: [(item: UInt64, after: Int)] = []
        var peer: [UInt8]?
        /// Heartbeats are answered while true; false plays a coordinator gone silent.
        var alive = true
        /// The `keep` for each registration after the first; all it holds when nil.
        var keep: (@Sendable ([HeldItems]) -> [HeldItems])?
        /// Heartbeats the worker may miss before it registers again (the welcome's `liveness`).
        var liveness = 5
        /// `workerReady`s to leave unanswered, as a coordinator that lost them would.
        var unanswered = 0
    }

    /// Plays the coordinator: welcomes (keeping per `seen.keep`), answers heartbeats while
    /// alive, records answers.
    static func serve(_ raw: RawCoordinator, _ seen: NIOLockedValueBox<Seen>) async {
        for await event in raw.endpoint.events {
            guard case .message(let message) = event, message.frames.count >= 2,
                  let envelope = try? WireCodec.decode(message.frames.dropFirst()) else { continue }
            let from = Array(message.frames[0])
            switch envelope.message {
            case .workerReady(let hello):
                let answer = seen.withLockedValue { seen -> (keep: [HeldItems], liveness: Int)? in
                    seen.hellos.append(hello)
                    seen.peer = from
                    seen.alive = true
                    guard seen.unanswered == 0 else {
                        seen.unanswered -= 1
                        return nil
                    }
                    return (seen.keep.map { $0(hello.holding ?? []) } ?? hello.holding ?? [], seen.liveness)
                }
                guard let (keep, liveness) = answer else { continue }
                var welcome = Welcome(heartbeatMilliseconds: 100, liveness: liveness)
                welcome.keep = keep
                raw.send(.welcome(welcome), to: from)
            case .heartbeat:
                if seen.withLockedValue({ $0.alive }) { raw.send(.heartbeat, to: from) }
            case .result(let result):
                seen.withLockedValue { $0.answers.append((result.itemID, $0.hellos.count)) }
            default:
                break
            }
        }
    }

    /// Sends items `items` of job 1, small, at level 1.
    static func sendItems(_ items: Range<UInt64>, via raw: RawCoordinator, to peer: [UInt8]) throws {
        let setting = try LevelTable.setting(forLevel: 1)
        for item in items {
            let block = WorkBlock(file: UInt32(item), index: 0, dictionaryLength: 0, isLast: true, bytes: ZMQFrame(Array(repeating: 7, count: 100)))
            raw.send(.work(WorkAssignment(jobID: 1, itemID: item, setting: setting, blocks: [block])), to: peer)
        }
    }

    /// Once the worker has registered, sends it items 0..<8 and waits for its first answer;
    /// returns its routing id.
    @discardableResult
    static func startWork(via raw: RawCoordinator, _ seen: NIOLockedValueBox<Seen>) async throws -> [UInt8] {
        #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { $0.peer } != nil })
        let peer = try #require(seen.withLockedValue { $0.peer })
        try sendItems(0..<8, via: raw, to: peer)
        #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { !$0.answers.isEmpty } })
        return peer
    }

    /// A worker with one slot that takes `delay` over each item.
    static func worker(at address: String, context: ZMQContext, delay: Duration) -> Worker {
        var configuration = WorkerConfiguration(coordinator: address, slots: 1, workerID: "returning")
        configuration.storage = .remote
        configuration.itemDelayForTesting = delay
        return Worker(configuration: configuration, context: context)
    }

    @Test("told it is unknown, it names what it holds; it answers exactly the items kept, never the dropped ones")
    func unknownPeer() async throws {
        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let worker = Self.worker(at: raw.address, context: context, delay: .milliseconds(150))
        let seen = NIOLockedValueBox(Seen())
        // Keeps the odd items and the last one, drops the even ones. It registers again only
        // because it is told to: a machine too busy to beat for half a second must not make
        // it do so on its own (a third registration), so it may miss 30 beats here.
        seen.withLockedValue {
            $0.keep = { lists in lists.map { HeldItems(jobID: $0.jobID, itemIDs: $0.itemIDs.filter { $0 % 2 == 1 || $0 == 7 }) } }
            $0.liveness = 30
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask { await Self.serve(raw, seen) }
            let peer = try await Self.startWork(via: raw, seen)
            raw.send(.unknownPeer, to: peer)
            // Items are compressed in order: once 7 is answered, every kept one before it is.
            #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { $0.answers.contains { $0.item == 7 } } })
            let (hellos, answers) = seen.withLockedValue { ($0.hellos, $0.answers) }
            #expect(hellos.count == 2)
            let before = Set(answers.filter { $0.after == 1 }.map(\.item))
            let holding = Set(HeldItems.pairs(in: hellos.last?.holding ?? []).map(\.item))
            // It held exactly what it had not answered.
            #expect(holding == Set(0..<8).subtracting(before), "answered \(before.sorted()), held \(holding.sorted())")
            let after = answers.filter { $0.after == 2 }.map(\.item)
            #expect(after == holding.filter { $0 % 2 == 1 || $0 == 7 }.sorted())
            #expect(Set(answers.map(\.item)).count == answers.count, "no item answered twice")
            group.cancelAll()
        }
        await raw.endpoint.shutdown()
    }

    @Test("told it is unknown five times at once, it announces itself once; an announcement left unanswered past a heartbeat interval goes again at the next")
    func unknownPeerRepeated() async throws {
        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let worker = Self.worker(at: raw.address, context: context, delay: .milliseconds(150))
        let seen = NIOLockedValueBox(Seen())
        seen.withLockedValue { $0.liveness = 30 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask { await Self.serve(raw, seen) }
            let peer = try await Self.startWork(via: raw, seen)
            // A coordinator that was paused answers the heartbeats queued meanwhile at once.
            for _ in 0..<5 { raw.send(.unknownPeer, to: peer) }
            // Answers after the second registration show it was welcomed and went on.
            #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { $0.answers.contains { $0.after == 2 } } })
            #expect(seen.withLockedValue { $0.hellos.count } == 2)
            // One that is lost (a coordinator that restarted never saw it) is not waited on
            // for long: a heartbeat interval (100 ms) later, the next unknownPeer sends another.
            seen.withLockedValue { $0.unanswered = 1 }
            raw.send(.unknownPeer, to: peer)
            #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { $0.hellos.count } == 3 })
            try await Task.sleep(for: .milliseconds(150))
            raw.send(.unknownPeer, to: peer)
            #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { $0.hellos.count } == 4 })
            #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { $0.answers.count } >= 8 })
            let (hellos, answers) = seen.withLockedValue { ($0.hellos.count, $0.answers) }
            #expect(hellos == 4)
            #expect(answers.map(\.item).sorted() == Array(0..<8), "every item answered once: \(answers.map(\.item))")
            group.cancelAll()
        }
        await raw.endpoint.shutdown()
    }

    @Test("its coordinator gone silent, it goes on compressing; on its new connection it answers what it finished meanwhile and the rest, each once")
    func silentCoordinator() async throws {
        let context = try ZMQContext()
        let raw = try await RawCoordinator.start(context: context)
        let worker = Self.worker(at: raw.address, context: context, delay: .milliseconds(250))
        let seen = NIOLockedValueBox(Seen())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await worker.run() }
            group.addTask { await Self.serve(raw, seen) }
            try await Self.startWork(via: raw, seen)
            seen.withLockedValue { $0.alive = false }
            #expect(await QuietHeartbeatTests.eventually(within: .seconds(20)) { seen.withLockedValue { $0.hellos.count } >= 2 })
            #expect(await QuietHeartbeatTests.eventually { seen.withLockedValue { $0.answers.count } >= 8 })
            let (hellos, answers) = seen.withLockedValue { ($0.hellos, $0.answers) }
            #expect(answers.map(\.item).sorted() == Array(0..<8), "every item answered once: \(answers.map(\.item))")
            let held = Set(HeldItems.pairs(in: hellos[1].holding ?? []).map(\.item))
            let answeredBefore = Set(answers.filter { $0.after == 1 }.map(\.item))
            #expect(!held.isEmpty && held == Set(0..<8).subtracting(answeredBefore))
            group.cancelAll()
        }
        await raw.endpoint.shutdown()
    }
}
