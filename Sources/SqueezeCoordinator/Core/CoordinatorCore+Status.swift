import SqueezeProtocol

/// What `squeeze status` shows: the workers, the jobs running and the history.
extension CoordinatorCore {
    /// Workers and jobs at `time`, for `status`; `cpuSeconds` is what the process has used.
    mutating func status(at time: EventTime, cpuSeconds: Double?) -> ClusterStatus {
        advance(to: time)
        let workerList = workers.all.map { worker in
            var status = WorkerStatus(
                workerID: worker.hello.workerID, host: worker.hello.host, slots: worker.hello.slots,
                busy: scheduler.busy(worker.routingID), megabytesPerSecond: worker.megabytesPerSecond(now: now),
                lastHeartbeatSeconds: (now - worker.lastHeard).seconds, itemsDone: worker.itemsDone,
                engines: worker.engines.map(\.rawValue).sorted(), storage: worker.storage.rawValue,
                quarantined: verification.quarantine.isQuarantined(verification.identity(of: worker.routingID)) ? true : nil,
                refusedResults: verification.quarantine.strikes(of: verification.identity(of: worker.routingID)))
            status.localProcess = worker.principal.origin.process
            return status
        }.sorted { $0.workerID < $1.workerID }
        let running = jobOrder.compactMap { jobs[$0] }.map { job in
            var status = job.status(now: now)
            let snapshot = job.snapshot(workers: workers.count, now: now)
            status.active = snapshot.active
            status.scanning = snapshot.scanning
            return status
        }
        var status = ClusterStatus(workers: workerList, jobs: running + finishedJobs, lateResults: lateResults, malformedMessages: malformedMessages,
            coordinatorCPUSeconds: cpuSeconds)
        status.refusedResults = verification.refusedResults
        status.resultsChecked = configuration.verifyResults
        status.checksByWorkers = verification.checkedByWorkers
        status.checksByCoordinator = verification.checkedLocally
        status.checksForIndependence = verification.checkedForIndependence
        status.auditsByWorkers = verification.auditsByWorkers
        status.auditsByCoordinator = verification.auditsLocally
        status.collusionsCaught = verification.collusionsCaught
        status.outputsRechecked = verification.outputsRechecked
        status.outputsRedone = verification.outputsRedone
        status.stitchChecksByWorkers = verification.segmentsCheckedByWorkers
        status.stitchChecksByCoordinator = verification.segmentsCheckedLocally
        status.refusedStitches = verification.refusedStitches
        status.batchesPublished = batchesPublished
        status.batchesExpanded = batchesExpanded
        if let authorized = configuration.security?.authorized {
            status.authorizedKeys = authorized.count
            status.refusedConnections = authorized.refusedCount
        }
        return status
    }
}
