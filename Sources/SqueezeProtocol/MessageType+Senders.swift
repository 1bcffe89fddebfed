extension MessageType {
    /// What a worker sends the coordinator.
    public static let fromWorkers: Set<MessageType> = [
        .workerReady, .heartbeat, .result, .itemFailed, .goodbye, .probeReply, .resultRef, .stitched, .discarded, .published, .verified, .timing, .clock, .scanned, .listingChecked,
    ]
    /// What a worker sends before the coordinator has registered it: its announcement,
    /// heartbeats (sent from the start; a coordinator that does not know the worker answers one
    /// with `unknownPeer`, which makes it announce itself again) and `goodbye`.
    public static let fromUnregisteredWorkers: Set<MessageType> = [.workerReady, .heartbeat, .goodbye]
    /// What the coordinator sends a worker.
    public static let toWorkers: Set<MessageType> = [
        .welcome, .heartbeat, .work, .cancelJob, .unknownPeer, .probe, .workRef, .stitch, .discard, .publish, .batch, .verifyBatch, .scan, .checkListing, .verify, .timings, .error,
    ]
    /// What a client sends the coordinator.
    public static let fromClients: Set<MessageType> = [.submit, .attach, .cancel, .statusRequest, .heartbeat]
    /// What the coordinator sends a client.
    public static let toClients: Set<MessageType> = [.submitted, .jobEvent, .statusReply, .error, .heartbeat]
}
