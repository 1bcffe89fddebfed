import SqueezeIO
import SqueezeJournal
import SqueezeProtocol

/// Publishing by workers: the worker whose attempt of an item was accepted renames that
/// attempt's whole members into place itself, on one `publish` per item, so the coordinator
/// opens, syncs and renames none of those files. A worker that leaves or takes too long has
/// its grant finished by a writer, with the same attempt's pieces: one attempt of a file is
/// ever published, whoever renames it.
extension CoordinatorCore {
    /// Whether worker `peer` publishes the accepted whole members it wrote for job `id`.
    func publishes(_ peer: PeerID?, job id: JobID) -> Bool {
        guard configuration.workersPublish, let peer, let worker = workers[peer] else { return false }
        return worker.hello.capabilities?.contains(WorkerHello.publishCapability) == true
            && worker.isShared(for: id)
            && !verification.quarantine.isQuarantined(verification.identity(of: peer))
    }

    /// Grants worker `peer` the publishing of item `key`'s whole members (all of one attempt,
    /// the accepted one). They hold the window until it answers.
    /// With a journal, the members are recorded first (`recordGrant`) and the grant leaves once
    /// they are: the journal never lacks an output that is in place, which a resumed job needs
    /// to tell its own outputs from anyone else's.
    mutating func grant(_ key: ItemKey, members: [(spec: OutputSpec, piece: PieceBlock)], to peer: PeerID, in job: inout JobRecord) {
        guard let attempt = members.first?.piece.attempt, workers[peer] != nil else { return }
        var grant = GrantInFlight(worker: peer, attempt: attempt, since: now, members: members)
        guard configuration.journal != nil else {
            sendGrant(grant, for: key, workspace: job.workspace.path)
            grant.sent = true
            job.grants[key.item] = grant
            return
        }
        job.grants[key.item] = grant
        // Published by a worker, so no inode is known here: 0 says "identify it by size and CRC".
        let records = members.map { member in
            PublishedFile(
                job: key.job.value, path: member.spec.relativePath, sourceSize: member.spec.stamp.size,
                sourceModifiedSeconds: member.spec.stamp.modifiedSeconds, sourceModifiedNanoseconds: member.spec.stamp.modifiedNanoseconds,
                sourceDevice: member.spec.stamp.device, sourceInode: member.spec.stamp.inode,
                outputSize: member.piece.length, outputInode: 0, crc: member.piece.crc)
        }
        recordGrant(key, records)
    }

    /// Has grant `key`'s records written before it leaves: at once when no transaction is in
    /// flight, else with every grant that comes meanwhile, in the next (`GrantRecords`).
    mutating func recordGrant(_ key: ItemKey, _ records: [PublishedFile]) {
        if let command = grantRecords.record(key, records) { outbox.append(.journal(command)) }
    }

    /// A journal transaction of grants ended: each leaves, or fails; the grants that waited
    /// meanwhile go in the next one.
    mutating func grantsRecorded(_ keys: [ItemKey], failure: String?) {
        for key in keys { grantRecorded(key, failure: failure) }
        // A grant taken over, or whose job was cancelled or failed meanwhile, is left out.
        let next = grantRecords.recorded { key in jobs[key.job]?.phase.isRunning == true && jobs[key.job]?.grants[key.item]?.sent == false }
        if let next { outbox.append(.journal(next)) }
    }

    /// The journal recorded grant `key`'s members (it leaves now), or could not: then they are
    /// not published, and the job fails naming the journal, as when a writer's record fails.
    mutating func grantRecorded(_ key: ItemKey, failure: String?) {
        guard let grant = jobs[key.job]?.grants[key.item], !grant.sent, let workspace = jobs[key.job]?.workspace.path else { return }
        guard jobs[key.job]?.phase.isRunning == true else {
            // Cancelled or failed while it was recorded: nothing of it is published.
            jobs[key.job]?.grants.removeValue(forKey: key.item)
            return
        }
        if let failure {
            jobs[key.job]?.grants.removeValue(forKey: key.item)
            writerReported(members(of: grant, key: key).map { .failure(WriteFailure(key: $0.spec.key, reason: failure, journal: true)) })
            return
        }
        jobs[key.job]?.grants[key.item]?.sent = true
        jobs[key.job]?.grants[key.item]?.since = now
        if grant.batchPieces != nil {
            sendBatchGrant(key, to: grant.worker, attempt: grant.attempt)
        } else {
            sendGrant(grant, for: key, workspace: workspace)
        }
    }

    /// Sends grant `key` to its worker.
    private mutating func sendGrant(_ grant: GrantInFlight, for key: ItemKey, workspace: BytePath) {
        guard let worker = workers[grant.worker] else { return }
        send(.publish(PublishGrant(
            jobID: key.job.value, itemID: key.item.value, attempt: grant.attempt.value, workspace: workspace.bytes,
            syncPieces: worker.sharesKernel,
            members: grant.members.map { PublishMember(position: UInt32($0.piece.position), output: $0.spec.outputPath.bytes, replace: $0.spec.replace) })),
            to: grant.worker)
    }

    /// Worker `peer` says what its `publish` did: the members it names failed, the rest are in
    /// place and durable. Only the grant's worker and attempt count; a grant already taken
    /// over (or whose job ended) makes the answer late.
    mutating func published(_ report: PublishReport, from peer: PeerID) {
        let key = ItemKey(job: JobID(report.jobID), item: ItemID(report.itemID))
        guard let grant = jobs[key.job]?.grants[key.item] else {
            lateResults += 1
            return
        }
        guard grant.sent, grant.worker == peer, grant.attempt.value == report.attempt else {
            countMalformed(ProtocolError.malformed("published for item \(report.itemID) attempt \(report.attempt), not granted to it"), from: peer)
            return
        }
        jobs[key.job]?.grants.removeValue(forKey: key.item)
        if let pieces = grant.batchPieces {
            batchPublished(report, pieces: pieces, key: key)
            return
        }
        var reasons: [Int: String] = [:]
        for failure in report.failures where reasons[Int(failure.position)] == nil {
            reasons[Int(failure.position)] = failure.reason
        }
        var published = 0
        let outcomes = grant.members.map { member -> Result<OutputWriter.Progress, WriteFailure> in
            if let reason = reasons[member.piece.position] {
                return .failure(WriteFailure(key: member.spec.key, reason: reason))
            }
            published += 1
            return .success(OutputWriter.Progress(
                key: member.spec.key, rawBytes: UInt64(member.piece.rawLength), outputBytes: member.piece.length,
                outputTotal: member.piece.length, finished: true, sealed: true, blocks: 0..<1))
        }
        // Counted from the members, not from the report: failures it names at positions the
        // grant does not hold must not make the count negative (a counter traps on that).
        metrics.outputsPublishedByWorkers.increment(by: published)
        writerReported(outcomes)
    }

    /// The grants worker `peer` holds (it left, or registers again) go to the writers.
    mutating func takeOverGrants(of peer: PeerID) {
        for id in jobOrder {
            guard let grants = jobs[id]?.grants, !grants.isEmpty else { continue }
            for (item, grant) in grants where grant.worker == peer { takeOver(ItemKey(job: id, item: item)) }
        }
    }

    /// Grants not answered within `publishDeadline` go to the writers (checked once a period).
    mutating func expireGrants() {
        for id in jobOrder {
            guard let grants = jobs[id]?.grants, !grants.isEmpty else { continue }
            for (item, grant) in grants where now - grant.since >= configuration.publishDeadline {
                logger.warning("worker did not publish in time; a writer publishes its members", metadata: [
                    "worker": "\(workerName(grant.worker))", "job": "\(id)", "item": "\(item)",
                ])
                takeOver(ItemKey(job: id, item: item))
            }
        }
    }

    /// A writer publishes grant `key`'s members: the same attempt's pieces, which the worker
    /// may have renamed meanwhile (those count as done), never another attempt's.
    mutating func takeOver(_ key: ItemKey) {
        guard let grant = jobs[key.job]?.grants.removeValue(forKey: key.item) else { return }
        metrics.grantsTakenOver.increment()
        var byPartition: [Int: [(spec: OutputSpec, piece: PieceBlock)]] = [:]
        for member in members(of: grant, key: key) {
            if let partition = writerPartition(of: member.spec.key) { byPartition[partition, default: []].append(member) }
        }
        for (partition, list) in byPartition.sorted(by: { $0.key < $1.key }) { write(partition: partition, .takeOver(list)) }
    }
}
