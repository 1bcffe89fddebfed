import SqueezeProtocol
import SqueezeZMQ

/// Where the running coordinator's effects go: the workers' endpoint and the streams of the
/// tasks that read, write, scan, check and journal. It exists only while the coordinator runs
/// (`CoordinatorLifecycle`).
struct CoordinatorOutbox: Sendable {
    /// The workers' endpoint.
    let endpoint: ZMQEndpoint
    /// The clients' endpoint, when the coordinator serves clients.
    let clientEndpoint: ZMQEndpoint?
    /// Items for the readers.
    let dispatches: AsyncStream<Dispatch>.Continuation
    /// Scan batches for the scanner.
    let scans: AsyncStream<ScanRequest>.Continuation
    /// Commands for each writer partition.
    let writers: [AsyncStream<WriterCommand>.Continuation]
    /// Answers and segments for the coordinator's own checks.
    let checks: AsyncStream<LocalCheck>.Continuation
    /// Job ends for the journal.
    let journal: AsyncStream<JournalCommand>.Continuation

    /// Carries out `effect`, if it goes to one of these. Never blocks: a send is queued on the
    /// endpoint's thread, a stream takes what it is given.
    func perform(_ effect: CoordinatorEffect) {
        switch effect {
        case .send(let message, let peer):
            endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(message)))
        case .dispatch(let dispatch):
            dispatches.yield(dispatch)
        case .write(let command, let partition) where partition < writers.count:
            writers[partition].yield(command)
        case .check(let check):
            checks.yield(check)
        case .scan(let request):
            scans.yield(request)
        case .journal(let command):
            journal.yield(command)
        case .write, .jobEvent, .endJobEvents, .removeWorkspace:
            break
        }
    }

    /// Ends every stream: the tasks drain what they hold and return.
    func finish() {
        dispatches.finish()
        scans.finish()
        checks.finish()
        journal.finish()
        for writer in writers { writer.finish() }
    }
}
