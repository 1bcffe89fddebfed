import SqueezeProtocol
import SqueezeZMQ

/// Where the running coordinator's effects go: the workers' endpoint and the bounded queues of
/// the tasks that read, write, scan, check and journal. It exists only while the coordinator runs
/// (`CoordinatorLifecycle`).
struct CoordinatorOutbox: Sendable {
    /// The workers' endpoint.
    let endpoint: ZMQEndpoint
    /// The clients' endpoint, when the coordinator serves clients.
    let clientEndpoint: ZMQEndpoint?
    /// Items for the readers.
    let dispatches: StageQueue<Dispatch>
    /// Scan batches for the scanner.
    let scans: StageQueue<ScanRequest>
    /// Commands for each writer partition.
    let writers: [StageQueue<WriterCommand>]
    /// Answers and segments for the coordinator's own checks.
    let checks: StageQueue<LocalCheck>
    /// Job ends for the journal.
    let journal: StageQueue<JournalCommand>

    /// Carries out `effect`, if it goes to one of these; returns the stage whose queue it filled
    /// to the high watermark, for the core to hold back. Never blocks: a send is queued on the
    /// endpoint's thread, a queue keeps what it is given.
    func perform(_ effect: CoordinatorEffect) -> Stage? {
        let queue: (stage: Stage, accepted: Bool)
        switch effect {
        case .send(let message, let peer):
            endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(message)))
            return nil
        case .dispatch(let dispatch):
            queue = (dispatches.stage, dispatches.push(dispatch))
        case .write(let command, let partition) where partition < writers.count:
            queue = (writers[partition].stage, writers[partition].push(command))
        case .check(let check):
            queue = (checks.stage, checks.push(check))
        case .scan(let request):
            queue = (scans.stage, scans.push(request))
        case .journal(let command):
            queue = (journal.stage, journal.push(command))
        case .write, .jobEvent, .endJobEvents, .removeWorkspace, .registration:
            return nil
        }
        return queue.accepted ? nil : queue.stage
    }

    /// Ends every queue: the tasks drain what they hold and return.
    func finish() {
        dispatches.finish()
        scans.finish()
        checks.finish()
        journal.finish()
        for writer in writers { writer.finish() }
    }
}
