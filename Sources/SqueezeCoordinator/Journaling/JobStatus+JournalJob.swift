import Foundation
import SqueezeJournal
import SqueezeProtocol

extension JobStatus {
    /// An ended job of the journal's history, as `squeeze status` lists it. A journal row from
    /// before schema v2 has no planned totals (0): those it processed stand in.
    init(journaled job: JournalJob) {
        let totals = job.totals
        let finished = totals.filesDone + totals.filesFailed
        self.init(jobID: job.id, source: job.source, state: JobState(job.state), filesDone: finished,
                  files: max(totals.filesPlanned, finished), bytesDone: totals.bytesIn, bytes: max(totals.bytesPlanned, totals.bytesIn))
        bytesOut = totals.bytesOut
        filesFailed = totals.filesFailed
        submitter = job.submittedBy
        submittedAt = job.createdAt.timeIntervalSince1970
        seconds = job.finishedAt.map { max(0, $0.timeIntervalSince(job.createdAt)) }
        message = job.message
    }
}
