import SqueezeIO
import SqueezeProtocol

/// The check of stitched files: a worker that joins pieces is not trusted either. Each
/// segment it reports written is read back by another worker (or the coordinator), whose
/// CRC-32 of the range must equal the one the coordinator computes from the header, the
/// pieces as their own checks read them, and the trailer (docs/architecture.md, "Checking
/// results"). The output is published only once every segment passed.
extension CoordinatorCore {
    /// Sends a segment's check to a worker able to (announced `verifyRange`, sees the job's
    /// files, of another principal than the stitcher and than whoever reported its pieces'
    /// CRCs, which make the expected CRC), or does it here when there is none.
    /// An audit (`check.verdict` is `.audited`) goes to a worker independent of the verifier
    /// that said the segment is good as well.
    mutating func checkSegment(_ check: SegmentCheck) {
        var independentOf = vouchers(of: check)
        var excluded: Set<PeerID> = []
        if case .audited(let verifier) = check.verdict {
            excluded.insert(verifier)
            if let principal = workers[verifier]?.principal { independentOf?.append(principal) } else { independentOf = nil }
        }
        guard let verifier = VerifierChoice.choose(
            among: verifierCandidates(job: check.file.job, capability: WorkerHello.verifyRangeCapability),
            compressor: check.stitcher, byReference: true, independentOf: independentOf, excluding: excluded) else {
            if case .audited = check.verdict { verification.auditsLocally += 1 }
            checkLocally(check)
            return
        }
        if case .audited = check.verdict { verification.auditsByWorkers += 1 }
        verification.segments[check.id] = PendingSegmentCheck(check: check, verifier: verifier, sentAt: now)
        verification.segmentsCheckedByWorkers += 1
        sendVerify(VerifyRequest(checkID: check.id, jobID: check.file.job.value, itemID: 0, blocks: [.range(VerifyRange(
            path: check.path.bytes, offset: check.range.lowerBound, length: check.range.upperBound - check.range.lowerBound))]), to: verifier)
    }

    /// The principals a segment's expected CRC rests on: the stitcher's and those of the
    /// verifiers that reported its pieces' stored CRCs, except where the piece's compressor
    /// reported the same CRC (two principals agree on it). Nil when one of them left.
    func vouchers(of check: SegmentCheck) -> [Principal]? {
        var principals: [Principal] = []
        let reporters = check.pieces.compactMap { $0.isStoredCRCConfirmed ? nil : $0.storedCRCReporter }
        for peer in [check.stitcher] + reporters {
            guard let principal = workers[peer]?.principal else { return nil }
            if !principals.contains(principal) { principals.append(principal) }
        }
        return principals
    }

    /// The coordinator's own check of a segment, on its verification threads.
    mutating func checkLocally(_ check: SegmentCheck) {
        guard jobs[check.file.job]?.state == .running else { return }
        guard started else {
            segmentFailed(check, reason: "the coordinator is not running its checks", blameStitcher: false)
            return
        }
        verification.segmentsCheckedLocally += 1
        outbox.append(.check(.segment(check)))
    }

    /// A verifier's answer to a segment check: agreeing with the expected CRC passes (one in
    /// `auditInterval` is audited, by a third principal or here); anything else is confirmed
    /// here before anyone gets a strike.
    mutating func segmentVerified(_ report: VerifyReport, pending: PendingSegmentCheck, from peer: PeerID) {
        guard answeredByItsVerifier(pending.verifier, report, from: peer) else { return }
        verification.segments.removeValue(forKey: report.checkID)
        var check = pending.check
        let agrees = report.findings.count == 1 && report.findings[0].outcome == .decoded && report.findings[0].crc == check.expectedCRC
        guard agrees else {
            if report.findings.count == 1 && report.findings[0].outcome == .unreadable {
                // Nobody's word against the bytes: checked here with the verdict it had (an
                // audit stays one).
            } else if case .audited(let verifier) = check.verdict {
                check.verdict = .auditContested(verifier: verifier, auditor: peer)
            } else {
                check.verdict = .contested(by: peer)
            }
            checkLocally(check)
            return
        }
        if case .audited(let verifier) = check.verdict {
            recordVouching([check.stitcher, verifier, peer], job: check.file.job)
            segmentPassed(check)
            return
        }
        if verification.audit.shouldAudit(roll: rolls.next()) {
            check.verdict = .audited(peer)
            checkSegment(check)
            return
        }
        recordVouching([check.stitcher, peer], job: check.file.job)
        segmentPassed(check)
    }

    /// The coordinator read the segment itself: its word decides, and a verifier it
    /// contradicts gets a strike.
    mutating func segmentChecked(_ check: SegmentCheck, finding: SegmentFinding) {
        switch (check.verdict, finding) {
        case (.contested(let verifier), .matches), (.auditContested(_, let verifier), .matches):
            strike(verifier, reason: "it called a good stitched segment bad")
        case (.audited(let verifier), .differs(let reason)), (.auditContested(let verifier, _), .differs(let reason)):
            collusionCaught(compressor: check.stitcher, verifier: verifier, item: ItemKey(job: check.file.job, item: 0), reason: reason)
        default:
            break
        }
        switch finding {
        case .matches:
            segmentPassed(check)
        case .matchesPieces(let misreported):
            // The stitch is right; whoever reported a piece's bytes wrongly gets the strike.
            for position in misreported where position < check.pieces.count {
                if let reporter = check.pieces[position].storedCRCReporter {
                    strike(reporter, reason: "it reported a piece's bytes with another CRC-32 than they have")
                }
            }
            segmentPassed(check)
        case .differs(let reason):
            segmentFailed(check, reason: reason, blameStitcher: true)
        }
    }

    /// A segment passed: once the output is whole and every segment passed, it is published.
    mutating func segmentPassed(_ check: SegmentCheck) {
        guard jobs[check.file.job]?.state == .running, var stitch = jobs[check.file.job]?.stitching[check.file.file], stitch.attempt == check.attempt,
              stitch.checking.remove(check.id) != nil else { return }
        jobs[check.file.job]?.stitching[check.file.file] = stitch
        if stitch.isComplete { adoptStitch(check.file) }
    }

    /// A segment failed its check: the stitch is given up (its output is never published) and
    /// a writer joins the file from its pieces, which were checked on their own. The stitcher
    /// gets a strike when the bytes are wrong.
    mutating func segmentFailed(_ check: SegmentCheck, reason: String, blameStitcher: Bool) {
        guard let stitch = jobs[check.file.job]?.stitching[check.file.file], stitch.attempt == check.attempt else { return }
        if blameStitcher {
            verification.refusedStitches += 1
            metrics.refusedStitches.increment()
            strike(check.stitcher, reason: reason, what: "stitch refused: a joined file differs from its pieces; the coordinator joins it")
        }
        stitchInWriter(check.file)
    }
}
