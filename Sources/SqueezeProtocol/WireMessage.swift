/// Every message of protocol v1, decoded.
public enum WireMessage: Sendable, Equatable {
    case workerReady(WorkerHello)
    case welcome(Welcome)
    case heartbeat
    case work(WorkAssignment)
    case result(WorkResult)
    case itemFailed(ItemFailure)
    case cancelJob(UInt64)
    case goodbye
    case unknownPeer
    case submit(JobRequest)
    case submitted(JobAccepted)
    case jobEvent(JobEvent)
    case cancel(UInt64)
    case statusRequest
    case statusReply(ClusterStatus)
    case error(ErrorReply)

    /// The header type byte for this message.
    public var type: MessageType {
        switch self {
        case .workerReady: .workerReady
        case .welcome: .welcome
        case .heartbeat: .heartbeat
        case .work: .work
        case .result: .result
        case .itemFailed: .itemFailed
        case .cancelJob: .cancelJob
        case .goodbye: .goodbye
        case .unknownPeer: .unknownPeer
        case .submit: .submit
        case .submitted: .submitted
        case .jobEvent: .jobEvent
        case .cancel: .cancel
        case .statusRequest: .statusRequest
        case .statusReply: .statusReply
        case .error: .error
        }
    }
}
